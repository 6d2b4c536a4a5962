# btt's phases and blkmap's, side by side, in Debian's 6.1 and 6.12: blktrace
# and blkmap record the same I/O on a virtio disk under mq-deadline
# (sequential and random direct I/O, a reader and a writer at once,
# buffered writes merged by the plug and the scheduler; scenarios/btt-phases.sh).
# btt, on blktrace's files, and `blkmap report --phases`, on blkmap's, must
# agree: every phase's count exactly and its average within 2 % (and what
# the two tracers' time stamps of the same events differ by: see
# tests/lib/btt_compare.py), merges, request sizes and seeks; and the merges
# are the kernel's own count (/proc/diskstats, read around the I/O).
. "$(dirname "$0")/lib.sh"
command -v btt >/dev/null && command -v blkparse >/dev/null ||
	skip "no btt or blkparse on this machine (Debian's blktrace package)"

for kernel in ${KERNELS:-default 6.12}; do
	out=$T/$kernel
	# One vCPU: with two, single-threaded TCG pauses a vCPU for the other's
	# slice, at times between blktrace's probe and blkmap's on one
	# tracepoint, and the two time stamps of an event differ by hundreds of
	# microseconds (Q2G's average moved by 12 us of 38 in such a run).
	"$top/tests/vm/run" --kernel="$kernel" --cpus=1 "$top/tests/vm/scenarios/btt-phases.sh" \
		"$out" || { cat "$out/console.log" 2>/dev/null; fail "$kernel: btt-phases failed"; }
	disk=$(cat "$out/disk")
	blkparse -q -i bt -D "$out" -d "$out/bt.bin" -O >/dev/null ||
		fail "$kernel: blkparse cannot read blktrace's files"
	# In $out: btt writes its per-device IOPS and MB/s files where it runs.
	(cd "$out" && btt -i bt.bin -o btt >/dev/null) || fail "$kernel: btt failed"
	blkparse -q -i bt -D "$out" -f "%a %S %n %T.%t\n" >"$out/bt.txt"
	"$BLKMAP" report --phases -f csv "$out/rec.dat" >"$out/phases.csv" ||
		fail "$kernel: report --phases failed"
	"$BLKMAP" report -f csv --disk "$disk" "$out/rec.dat" >"$out/events.csv"
	status=0
	python3 "$top/tests/lib/btt_compare.py" "$out/btt.avg" "$out/phases.csv" "$disk" \
		"$out/bt.txt" "$out/events.csv" "$(cat "/dev/null"; sed -n 2p "$out/events.csv" |
		cut -d, -f6)" >"$out/compare.txt" || status=$?
	sed "s/^/# $kernel: /" "$out/compare.txt"
	[ $status -ne 77 ] || fail "$kernel: btt saw no I/O on $disk: the scenario did nothing"
	[ $status -eq 0 ] || fail "$kernel: blkmap's phases are not btt's (see above)"
	# The kernel counts the same merges (bios into requests, requests into
	# others) in the disk's stat: reads, writes and discards merged.
	kernel_merges=$(awk -v d="$disk" '$3 == d {print $5 + $9 + ($16 == "" ? 0 : $16)}' \
		"$out/stat.before" "$out/stat.after" | tr '\n' ' ' | awk '{print $2 - $1}')
	blkmap_merges=$(python3 -c 'import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["name"] == sys.argv[2] and r["op"] == "all"][0]
print(int(r["merges"]) + int(r["rq_merges"]))' "$out/phases.csv" "$disk")
	note "$kernel: $blkmap_merges merges, the kernel's stat $kernel_merges"
	[ "$kernel_merges" -gt 0 ] || fail "$kernel: no merges on $disk: the scenario did not merge"
	[ "$blkmap_merges" = "$kernel_merges" ] ||
		fail "$kernel: blkmap counted $blkmap_merges merges, the kernel $kernel_merges"
done
