# tests/lib.sh: the helpers every shell suite shares (POSIX sh: the suites
# run under sh or bash). A suite, after `cd` to the repository root, does
#     SUITE=e2e
#     . tests/lib.sh
# and gets:
#   ROOT          the repository root (absolute)
#   TMP           a fresh private directory (mode 0700), removed on exit
#   pass fail skip  the counters
#   ok MSG        counts a pass:    "ok   - MSG"
#   bad MSG [FILE]  counts a failure: "FAIL - MSG", then the last 40 lines
#                 of FILE (default $TMP/err, when it exists), indented
#   skipped MSG   counts a skip:    "skip - MSG"
#   check MSG CMD [ARG...]  ok MSG when CMD succeeds, else bad MSG
#   note MSG      a "# MSG" line (figures, remarks)
#   poll SECONDS CMD [ARG...]  runs CMD every 50 ms until it succeeds (0) or
#                 SECONDS have passed (1): a wait on a positive condition,
#                 with a deadline generous enough for a loaded box
#   suite_cleanup a function the suite may define; run on exit (also after
#                 INT/TERM/HUP) before TMP is removed: kill daemons there
#   finish        repeats each failed check's line (a long run's log may be
#                 cut to its head and tail), prints "SUITE: N passed, M
#                 failed[, K skipped]" and exits 0 when nothing failed, else 1
SUITE=${SUITE:-$(basename "$0" .sh)}
ROOT=$PWD
pass=0
fail=0
skip=0
TMP=$(mktemp -d) || { echo "$SUITE: cannot make a temporary directory" >&2; exit 1; }
chmod 700 "$TMP"

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
bad() {
    fail=$((fail + 1))
    echo "FAIL - $1"
    echo "FAIL - $1" >>"$TMP/.failed"
    _lib_f=${2:-$TMP/err}
    [ -f "$_lib_f" ] && tail -n 40 "$_lib_f" | sed 's/^/       /'
    return 0
}
skipped() { skip=$((skip + 1)); echo "skip - $1"; }
check() { _lib_d=$1; shift; if "$@"; then ok "$_lib_d"; else bad "$_lib_d" /dev/null; fi; }
note() { echo "# $*"; }
poll() {
    _lib_end=$(($(date +%s) + $1))
    shift
    while :; do
        "$@" && return 0
        [ "$(date +%s)" -ge "$_lib_end" ] && return 1
        sleep 0.05
    done
}

lib_cleanup() {
    trap - EXIT INT TERM HUP
    command -v suite_cleanup >/dev/null 2>&1 && suite_cleanup
    rm -rf "$TMP"
}
trap lib_cleanup EXIT
trap 'echo "$SUITE: interrupted"; exit 130' INT TERM HUP

finish() {
    if [ -s "$TMP/.failed" ]; then
        echo "# $SUITE: the failed checks again:"
        cat "$TMP/.failed"
    fi
    if [ "$skip" -gt 0 ]; then echo "$SUITE: $pass passed, $fail failed, $skip skipped"
    else echo "$SUITE: $pass passed, $fail failed"; fi
    [ "$fail" -eq 0 ] && exit 0
    exit 1
}
