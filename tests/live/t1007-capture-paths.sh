# The capture paths take the same events: recorders side by side, one by the
# default path (read(2) with sub-buffers of a page), one by splice(2), one
# with sub-buffers of 64 KiB where the kernel has them (6.8+; splice(2) by
# default there) and, where the kernel maps its buffers (6.10+), one by the
# mapped buffer, each saying its path; a burst, then writes a second apart
# (partly filled pages, taken at a flush and finished later); every
# recording's writes on the device are the kernel's count.
. "$(dirname "$0")/lib.sh"
need_root
# Background jobs of sh ignore SIGINT: a failure stops the recorders with TERM.
stop_all() {
	for p in $paths; do
		[ ! -s "$T/$p.pid" ] || kill -TERM "$(cat "$T/$p.pid")" 2>/dev/null || true
	done
}
trap 'st=$?; stop_all; (exit $st); cleanup' EXIT

z=$(new_zram)
DEV=$(devnum zram$z)
paths="default splice mapped"
[ ! -e "$(tracing_dir)/buffer_subbuf_size_kb" ] || paths="$paths large"
for p in $paths; do
	if [ $p = default ]; then
		"$BLKMAP" record -o "$T/$p.dat" 2>"$T/$p.err" &
	elif [ $p = large ]; then
		"$BLKMAP" record -S 64 -o "$T/$p.dat" 2>"$T/$p.err" &
	else
		BLKMAP_CAPTURE=$p "$BLKMAP" record -o "$T/$p.dat" 2>"$T/$p.err" &
	fi
	echo $! >"$T/$p.pid"
done
for p in $paths; do
	wait_line "$T/$p.err" "recording into"
done
grep -q "pages by read(2) of trace_pipe_raw (sub-buffers of a page)" "$T/default.err" ||
	fail "the default path is not read(2): $(cat "$T/default.err")"
grep -q "pages by splice(2) of trace_pipe_raw (BLKMAP_CAPTURE=splice)" "$T/splice.err" ||
	fail "BLKMAP_CAPTURE=splice did not splice: $(cat "$T/splice.err")"
case $paths in *large*)
	grep -q "pages by splice(2) of trace_pipe_raw (sub-buffers larger than a page)" \
		"$T/large.err" || fail "64 KiB sub-buffers are not spliced: $(cat "$T/large.err")" ;;
esac
if ! grep -q "pages by the ring buffer mapped" "$T/mapped.err"; then
	grep -q "cannot be mapped" "$T/mapped.err" ||
		fail "BLKMAP_CAPTURE=mapped neither mapped nor said why: $(cat "$T/mapped.err")"
	note "this kernel does not map: $(grep -o 'cannot be mapped[^)]*' "$T/mapped.err")"
fi

before=$(awk '{print $5}' /sys/block/zram$z/stat)
dd if=/dev/zero of=/dev/zram$z bs=4k count=10000 oflag=direct 2>/dev/null
for i in 1 2 3; do
	sleep 1.2
	dd if=/dev/zero of=/dev/zram$z bs=4k count=3 seek=$i oflag=direct 2>/dev/null
done
after=$(awk '{print $5}' /sys/block/zram$z/stat)
sleep 0.2
stop_all
for p in $paths; do
	wait "$(cat "$T/$p.pid")" || fail "$p: record exited $?: $(cat "$T/$p.err")"
done
assert_clean

for p in $paths; do
	grep -q "lost 0 " "$T/$p.err" || fail "$p: events were lost, nothing to compare: $(tail -n 1 "$T/$p.err")"
	"$BLKMAP" report -f csv "$T/$p.dat" >"$T/$p.csv" || fail "$p: report failed"
	# The device's own events: the recorders' spools and files are written elsewhere.
	awk -F, -v d="$DEV" 'NR > 1 && $6 == d {n[$5]++} END {for (e in n) print e, n[e]}' \
		"$T/$p.csv" | sort >"$T/$p.count"
	"$BLKMAP" report --disks -f csv "$T/$p.dat" >"$T/$p.disks" || fail "$p: report --disks failed"
	writes=$(awk -F, -v d="$DEV" '$2 == d {print $4}' "$T/$p.disks")
	[ "$writes" = $((after - before)) ] ||
		fail "$p: ${writes:-no} writes on zram$z, the kernel counted $((after - before))"
done
for p in $paths; do
	diff "$T/default.count" "$T/$p.count" || fail "the default path and $p took different events"
done
note "$(awk '{s += $2} END {print s}' "$T/default.count") events alike by every path; $((after - before)) writes on zram$z"
