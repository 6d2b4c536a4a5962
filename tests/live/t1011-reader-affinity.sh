# Each CPU's reader runs on the CPU it reads, and never outside the CPUs
# blkmap was started on: under taskset -c N every thread stays on CPU N.
. "$(dirname "$0")/lib.sh"
need_root
# The CPUs this test may run on, one a line ("0-3,6" expanded): each has a ring buffer.
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
	awk -F- '{for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c}')
[ "$(echo "$cpus" | wc -l)" -ge 2 ] || skip "one CPU: nothing to pin apart"
command -v taskset >/dev/null || skip "no taskset (util-linux)"

# masks [taskset CPUS]: each thread's Cpus_allowed_list while it records, one a line.
masks() {
	rm -f "$T/rec.dat" "$T/err"
	${1:+taskset -c "$1"} "$BLKMAP" record -o "$T/rec.dat" -- sleep 2 2>"$T/err" &
	pid=$!
	until grep -q "recording into" "$T/err" 2>/dev/null; do
		kill -0 $pid 2>/dev/null || { cat "$T/err"; fail "the recorder ended before recording"; }
		sleep 0.05
	done
	# taskset execs blkmap: the pid is the recorder's either way
	for t in /proc/$pid/task/*; do
		sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status"
	done >"$T/masks"
	wait $pid || { cat "$T/err"; fail "the recorder failed"; }
	cat "$T/masks"
}

masks >"$T/free"
note "threads' CPUs: $(tr '\n' ' ' <"$T/free")"
for cpu in $cpus; do
	[ "$(grep -cx "$cpu" "$T/free")" -ge 1 ] || fail "no thread runs on CPU $cpu alone: $(tr '\n' ' ' <"$T/free")"
done

first=$(echo "$cpus" | head -n 1)
masks "$first" >"$T/zero"
note "under taskset -c $first: $(tr '\n' ' ' <"$T/zero")"
[ -s "$T/zero" ] || fail "no thread seen under taskset"
! grep -vx "$first" "$T/zero" >/dev/null || fail "a thread left CPU $first under taskset -c $first: $(tr '\n' ' ' <"$T/zero")"
assert_clean
