#!/usr/bin/env bash
# Writes one man page from the texts users already read, so the two cannot
# drift: a command's page is help2man over `strobe SUBCOMMAND --help` (its
# synopsis, options, examples, environment and exit statuses) with the
# command's section of docs/USAGE.md as its DESCRIPTION; libstrobe(3) is
# docs/LIBSTROBE.md. Markdown becomes roff through go-md2man.
# Usage: make_man.sh STROBE SUBCOMMAND|- "SUMMARY" DOC.md "DOC HEADING" OUT VERSION DATE
#        (SUBCOMMAND "-": the page of `strobe` itself; "lib": libstrobe(3),
#        taking DOC.md whole)
set -euo pipefail
strobe=$1 sub=$2 summary=$3 doc=$4 heading=$5 out=$6 version=$7 date=$8
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The section of DOC.md under "## HEADING" (up to the next "## "), its
# subsections made the page's own sections' subsections.
section_md() {
  awk -v h="## $1" '$0 == h {f = 1; next} /^## /{f = 0} f' "$doc" | sed 's/^### /## /'
}
# go-md2man's roff, without its own header lines. Tables become lists
# first (a man page is read at 80 columns): each row's first cell in bold,
# then the others, named by their column's heading when there are more
# than two.
to_roff() {
  awk -F'|' '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    /^\|/ {
      n = NF - 2
      if (!inside) { inside = 1; for (i = 2; i <= NF - 1; i++) head[i] = trim($i); next }
      if ($2 ~ /^[ :-]+$/) next
      line = "- **" trim($2) "**"
      if (n == 2) line = line ": " trim($3)
      else for (i = 3; i <= NF - 1; i++) if (trim($i) != "") line = line "; " head[i] ": " trim($i)
      print line
      next
    }
    { if (inside) print ""; inside = 0; print }' | go-md2man | sed '/^\.nh$/d;/^\.TH /d'
}

if [ "$sub" = lib ]; then
  {
    printf '.TH LIBSTROBE 3 "%s" "strobe %s" "Library Functions Manual"\n' "$date" "$version"
    printf '.SH NAME\nlibstrobe \\- %s\n' "$summary"
    printf '.SH SYNOPSIS\n.nf\n.B #include <strobe/strobe.h>\n.B #include <strobe/strobe.hpp>\n.PP\n'
    printf 'cc app.c $(pkg-config \\-\\-cflags \\-\\-libs strobe)\n'
    printf 'LD_PRELOAD=libstrobe.so STROBE_OUTPUT=app.pb.gz ./app\n.fi\n'
    printf '.SH DESCRIPTION\n'
    tail -n +2 "$doc" | sed 's/^## /# /;s/^### /## /' | to_roff
    printf '.SH SEE ALSO\n.BR strobe (1),\n.BR strobe-record (1)\n'
  } > "$out"
  exit 0
fi

# help2man runs a program: this one prints the subcommand's help with the
# footer's "Examples:", "Environment:" and "Exit status:" paragraphs on
# lines of their own, in the forms help2man turns into sections.
name=strobe
[ "$sub" = - ] || name="strobe-$sub"
cat > "$work/$name" <<SH
#!/bin/sh
"$strobe" $([ "$sub" = - ] || echo "$sub") --help |
  sed -E 's/^(Examples|Environment): */\n\1:\n/;s/^Exit status: */\n*Exit Status*\n/;s/^ {4,}(strobe .*)\$/\n\1/'
SH
chmod +x "$work/$name"

include=$work/include.h2m
{
  if [ -n "$heading" ]; then
    printf '[DESCRIPTION]\n'
    section_md "$heading" | to_roff
  fi
  printf '[SEE ALSO]\n'
  for page in strobe strobe-record strobe-report strobe-top strobe-import strobe-agent libstrobe; do
    [ "$page" = "$name" ] && continue
    sec=1
    [ "$page" = libstrobe ] && sec=3
    printf '.BR %s (%s),\n' "$page" "$sec"
  done
  printf 'and /usr/share/doc/strobe/ (USAGE.md, AGENT.md, FORMATS.md, FORMAT.md, LIBSTROBE.md).\n'
} > "$include"

help2man --no-info --no-discard-stderr --version-string="$version" -N \
  -n "$summary" -i "$include" -o "$work/page" "$work/$name"
# help2man names the page after the program's file; the date is the
# source's, so that a rebuild gives the same page.
sed -E "s/^\\.TH ([^ ]+) ([^ ]+) \"[^\"]*\"/.TH \\1 \\2 \"$date\"/" "$work/page" > "$out"
