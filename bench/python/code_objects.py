# A CPython process for bench_python_naming: defines N functions (N from
# argv, default 2000) with distinct names, files and line tables, prints
# the address of each one's code object on one line, then waits on stdin.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
namespace = {}
for i in range(n):
    body = "".join(f"    x{k} = a * {k} + {i}\n" for k in range(i % 20 + 1))
    src = "\n" * (i % 50) + f"def f{i}(a):\n{body}    return a\n"
    exec(compile(src, f"/srv/bench/module_{i % 97}.py", "exec"), namespace)
print(" ".join(str(id(namespace[f"f{i}"].__code__)) for i in range(n)), flush=True)
sys.stdin.readline()
