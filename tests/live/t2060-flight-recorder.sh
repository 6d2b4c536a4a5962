# The flight recorder (record --ring) against a full recording of the same
# time: a heavy fio job writes many times the ring, after devices came, went
# and reused a number, and while one device added before stays on. The
# ring's file must be bounded by the ring plus the map, hold every
# incarnation the full recording knows (their events long gone), label the
# window's events right (the staying device's among them), and a snapshot
# taken during the job must open in blkmap and trace-cmd.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/class/zram-control/hot_add ] || skip "no zram-control"
command -v fio >/dev/null || fail "fio is missing (scripts/install-deps installs it)"
RING_MIB=4
ALL=$T/all.log WINDOW=$T/window.log
: >"$ALL"
: >"$WINDOW"

# write LOG NAME SEEK COUNT: COUNT 4 KiB blocks at block SEEK of /dev/NAME, logged.
write() {
	log=$1; shift
	dd if=/dev/zero of="/dev/$1" bs=4k seek="$2" count="$3" oflag=direct 2>/dev/null
	echo "$1 $(devnum "/dev/$1") $(($2 * 8)) $(($3 * 8))" | tee -a "$ALL" >>"$log"
}

# Refusals: a ring too small, a size that is not one, a snapshot of nothing.
status=0
"$BLKMAP" record --ring=16K -o "$T/x.dat" 2>"$T/err" || status=$?
[ $status -eq 1 ] && grep -q 'too small: at least' "$T/err" ||
	{ cat "$T/err"; fail "--ring=16K: exit $status"; }
[ ! -e "$T/x.dat" ] || fail "--ring=16K left a file"
assert_clean
status=0
"$BLKMAP" record --ring=12Q -o "$T/x.dat" 2>"$T/err" || status=$?
[ $status -eq 64 ] || { cat "$T/err"; fail "--ring=12Q: exit $status, not 64"; }
status=0
"$BLKMAP" snapshot 2>"$T/err" || status=$?
[ $status -eq 1 ] && grep -q 'no flight recorder is running' "$T/err" ||
	{ cat "$T/err"; fail "snapshot without a recorder: exit $status"; }
# A flight recorder killed: reset removes its ring (a ring cannot be read back).
"$BLKMAP" record --ring=1M -o "$T/killed.dat" 2>"$T/killed.err" &
killed=$!
wait_line "$T/killed.err" "recording into"
kill -KILL $killed
wait $killed 2>/dev/null || true
"$BLKMAP" reset 2>"$T/err" || { cat "$T/err"; fail "reset failed"; }
grep -q "removed the ring of dead flight recorder $killed" "$T/err" ||
	{ cat "$T/err"; fail "reset did not say it removed the ring"; }
assert_clean

"$BLKMAP" record -o "$T/full.dat" 2>"$T/full.err" &
full=$!
"$BLKMAP" record --ring=${RING_MIB}M -o "$T/ring.dat" 2>"$T/ring.err" &
ring=$!
wait_line "$T/full.err" "recording into"
wait_line "$T/ring.err" "recording into"

# Before the window: a number used twice, a device that stays, the fio target.
z=$(new_zram); write /dev/null "zram$z" 10 3; drop_zram "$z"
z2=$(new_zram); [ "$z2" = "$z" ] || fail "premise missing: zram id not reused ($z then $z2)"
write /dev/null "zram$z2" 20 5; drop_zram "$z2"
stay=$(new_zram)		# written in the window: logged there
heavy=$(new_zram)

fio --name=heavy --filename=/dev/zram$heavy --rw=randwrite --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=16 --size=64M --io_size=1G --output=/dev/null &
job=$!
sleep 1
kill -0 $job 2>/dev/null || fail "the fio job ended before the snapshot: make it longer"
snap=$("$BLKMAP" snapshot) || { cat "$T/ring.err"; fail "blkmap snapshot failed"; }
[ "$snap" = "$T/ring.1.dat" ] || fail "snapshot named '$snap', not ring.1.dat"
hwm=$(awk '/^VmHWM/ {print $2}' /proc/$ring/status)
wait $job || fail "fio failed"

# The window: the device that stayed, and one that comes and goes.
write "$WINDOW" "zram$stay" 40 2
c=$(new_zram); write "$WINDOW" "zram$c" 50 4; drop_zram "$c"
drop_zram "$stay"
drop_zram "$heavy"
sleep 0.2
hwm2=$(awk '/^VmHWM/ {print $2}' /proc/$ring/status)
[ "$hwm2" -gt "$hwm" ] && hwm=$hwm2
kill -INT $full $ring
wait $full || { cat "$T/full.err"; fail "the full recording failed"; }
wait $ring || { cat "$T/ring.err"; fail "the flight recording failed"; }
cat "$T/ring.err"
assert_clean

full_size=$(stat -c %s "$T/full.dat") ring_size=$(stat -c %s "$T/ring.dat")
note "full recording $((full_size >> 10)) KiB; ring $((ring_size >> 10)) KiB;" \
	"the recorder's peak RSS $((hwm >> 10)) MiB"
[ "$full_size" -gt $((4 * RING_MIB << 20)) ] ||
	fail "premise missing: the job wrote only $((full_size >> 20)) MiB of events, not 4 rings"
# The ring, the kept map pages (a few), the header (formats, kallsyms).
[ "$ring_size" -le $(((RING_MIB + 2) << 20)) ] ||
	fail "ring.dat is $((ring_size >> 10)) KiB for a ring of $RING_MIB MiB"
[ "$hwm" -lt $((32 << 10)) ] || fail "the flight recorder's peak RSS is $((hwm >> 10)) MiB"

"$BLKMAP" report -f csv "$T/ring.dat" >"$T/ring.csv"
"$BLKMAP" report --map -f csv "$T/ring.dat" >"$T/ring-map.csv"
"$BLKMAP" report --map "$T/ring.dat"
# Premise: the events of the writes before the job are gone from the window...
dcol=$(csv_col "$T/ring.csv" dev) scol=$(csv_col "$T/ring.csv" sector)
grep -vxf "$WINDOW" "$ALL" >"$T/early.log"
early=$(awk -v d="$dcol" -v s="$scol" 'FNR == NR {dev[NR] = $2; lo[NR] = $3; hi[NR] = $3 + $4; n = NR; next}
	FNR > 1 { split($0, f, ","); for (i = 1; i <= n; i++)
		if (f[d] == dev[i] && f[s] >= lo[i] && f[s] < hi[i]) c++ }
	END {print c + 0}' "$T/early.log" "$T/ring.csv")
[ "$early" -eq 0 ] || fail "premise missing: $early events of the first writes are still in the window"
# ...but every incarnation is in the map, with its boundaries.
check_map "$ALL" "$T/ring-map.csv"
check_writes "$WINDOW" "$T/ring.csv"
# The same incarnations as the full recording's map, known from the same sources.
"$BLKMAP" report --map -f csv "$T/full.dat" >"$T/full-map.csv"
cut -d, -f1-3,6,7,12,13,15 "$T/full-map.csv" >"$T/full-devs"
cut -d, -f1-3,6,7,12,13,15 "$T/ring-map.csv" >"$T/ring-devs"
diff "$T/full-devs" "$T/ring-devs" || fail "the ring's map differs from the full recording's"

# The snapshot: a complete recording of its own.
"$BLKMAP" report --disks "$T/ring.1.dat" >/dev/null || fail "blkmap cannot read the snapshot"
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$T/ring.1.dat" >"$T/snap.txt" 2>&1 || {
		head "$T/snap.txt"; fail "trace-cmd cannot read the snapshot"; }
	grep -q 'block_bio_queue' "$T/snap.txt" || fail "trace-cmd shows no I/O in the snapshot"
else
	note "SKIP: trace-cmd is not installed: the snapshot was not opened with it"
fi
