# %util at light load: blkmap's busy time is the union of the disk's D2C
# intervals; the kernel's io_ticks, which iostat's %util is, counts whole
# jiffies at each I/O's start and end (update_io_ticks), so with 4 ms
# jiffies and I/Os of a tenth of that it counts the jiffy boundaries that
# fall inside an I/O: one I/O in forty adds 4 ms, the others nothing. Both
# are computed here from the events, and the kernel's io_ticks (read inside
# the recording) must be the second: the difference is the kernel's
# rounding, which report(1) explains (DISKS VIEW, %util). Under CPU
# contention a completion's task can be held past a tick between its trace
# and its accounting, which the events cannot show: where the kernel alone
# counted more, the run is tried again, twice, with the time tasks waited
# for a CPU (PSI) and the time the host took the CPUs (steal) beside it.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "no python3"

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
l=$(basename "$L")
# cpu_waited: the time some task waited for a CPU so far, in ms (PSI), or "?".
cpu_waited() {
	awk '/^some/ {sub("total=", "", $5); print int($5 / 1000); f = 1} END {if (!f) print "?"}' \
		/proc/pressure/cpu 2>/dev/null || echo "?"
}
# stolen: the time the host ran others on this machine's CPUs so far, in ms.
stolen() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {print int($9 * 1000 / hz)}' /proc/stat; }
# The kernel counting more alone (exit 2) can be CPU contention: tried thrice.
for attempt in 1 2 3; do
	waited=$(cpu_waited) steal=$(stolen)
	"$BLKMAP" record -o "$T/rec.dat" -- sh -c "
		cat /proc/diskstats >$T/stat.before
		for i in \$(seq 150); do
			dd if=/dev/zero of=$L bs=4k count=1 seek=\$i oflag=direct status=none || exit 1
			sleep 0.01
		done
		cat /proc/diskstats >$T/stat.after
	" 2>"$T/record.err" || { cat "$T/record.err"; fail "record failed"; }
	grep -q "lost 0 " "$T/record.err" || { cat "$T/record.err"; fail "events were lost: the figures cannot agree"; }
	"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv"
	"$BLKMAP" report --disks -f csv "$T/rec.dat" >"$T/disks.csv"
	status=0
	python3 "$(dirname "$0")/../lib/io_ticks.py" "$T/events.csv" "$T/disks.csv" \
		"$T/stat.before" "$T/stat.after" "$l" >"$T/out" || status=$?
	now=$(cpu_waited)
	[ "$waited" = "?" ] || [ "$now" = "?" ] || waited=$((now - waited))
	note "attempt $attempt: $(cat "$T/out") (meanwhile tasks waited for a CPU ${waited} ms, the host took $(($(stolen) - steal)) ms)"
	[ $status = 2 ] || break
done
[ $status = 0 ] || fail "see above"
