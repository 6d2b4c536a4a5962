# tests/vm/run names a guest kernel's crash (exit 3, with its first lines),
# instead of a scenario that "did not finish".
. "$(dirname "$0")/lib.sh"

set +e
"$top/tests/vm/run" "$top/tests/vm/scenarios/crash.sh" "$T/out" 2>"$T/err"
status=$?
set -e
[ $status -eq 3 ] || fail "vm/run exited $status for a guest that panicked: $(cat "$T/err")"
grep -q "the guest kernel reported a problem" "$T/err" && grep -q "Kernel panic" "$T/err" ||
	fail "vm/run did not show the panic: $(cat "$T/err")"
note "$(grep -m1 'Kernel panic' "$T/err")"
