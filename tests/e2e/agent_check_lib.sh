# Sourced by the agent_*_check.sh scripts: what each of them needs.

# wait_for SECONDS COMMAND...: until the command succeeds (status 1 when it
# never did).
wait_for() {
  local tries=$(($1 * 10))
  shift
  for _ in $(seq "$tries"); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# agent_port ERR_FILE: the port `strobe agent --http 127.0.0.1:0` announces
# on stderr (in ERR_FILE), waited for up to 10 s; exits the script when none.
agent_port() {
  local port=
  for _ in $(seq 100); do
    port=$(sed -n 's|^strobe: serving pprof profiles on http://127.0.0.1:\([0-9]*\)/debug/pprof/profile$|\1|p' "$1")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "FAIL: no port announced" >&2; cat "$1" >&2; exit 1; }
  echo "$port"
}
