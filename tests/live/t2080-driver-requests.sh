# Requests that move no data: reading a virtio disk's serial number sends
# the driver's own command (N in RWBS), issued at sector 0 and completed at
# sector 2^64-1. They must be counted apart and never stay in flight: the
# disk's busy time in --disks agrees with the kernel's io_ticks (field 10
# of /sys/block/X/stat) over the recording. The map carries the serial.
. "$(dirname "$0")/lib.sh"
need_root
disk=
for s in /sys/block/vd*/serial; do
	[ -r "$s" ] && cat "$s" >/dev/null 2>&1 && { disk=$(basename "$(dirname "$s")"); break; }
done
[ -n "$disk" ] || skip "SKIP: no virtio disk with a serial number to read on this machine"
READS=40

ticks() { awk '{print $10}' "/sys/block/$disk/stat"; }
"$BLKMAP" record -o "$T/rec.dat" 2>"$T/rec.err" &
rec=$!
wait_line "$T/rec.err" "recording into"
ticks0=$(ticks)
for i in $(seq $READS); do
	cat "/sys/block/$disk/serial" >/dev/null
	sleep 0.05
done
ticks1=$(ticks)
kill -INT $rec
wait $rec || { cat "$T/rec.err"; fail "recording failed"; }
assert_clean

# Sector 2^64-1 is no sector: past int64, CSV leaves it empty (JSON null).
"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv"
ev=$(csv_col "$T/events.csv" event) rw=$(csv_col "$T/events.csv" rwbs)
nm=$(csv_col "$T/events.csv" name) sc=$(csv_col "$T/events.csv" sector)
private=$(awk -F, -v e="$ev" -v r="$rw" -v n="$nm" -v s="$sc" -v d="$disk" \
	'$e == "block_rq_complete" && $r == "N" && $n == d && $s == ""' \
	"$T/events.csv" | wc -l)
[ "$private" -ge $READS ] ||
	fail "premise missing: $private completions of the driver's own requests at sector 2^64-1, $READS serial reads"

"$BLKMAP" report --disks -f csv "$T/rec.dat" >"$T/disks.csv"
row=$(awk -F, -v d="$disk" '$1 == d' "$T/disks.csv")
[ -n "$row" ] || { cat "$T/disks.csv"; fail "no row for $disk"; }
col() {
	c=$(csv_col "$T/disks.csv" "$1")
	[ -n "$c" ] || fail "--disks CSV has no column '$1'"
	echo "$row" | cut -d, -f"$c"
}
busy_ms=$(awk -v u="$(col util_pct)" -v s="$(col seconds)" 'BEGIN {printf "%d", u * s * 10}')
ios=$(($(col reads) + $(col writes)))
io_ticks=$((ticks1 - ticks0))
note "$disk: $ios reads and writes; busy $busy_ms ms in the report, io_ticks $io_ticks ms;" \
	"queue depth $(col queue_depth)"
# io_ticks counts whole jiffies (up to 10 ms an I/O) over a slightly longer time.
[ "$busy_ms" -le $((io_ticks + 20 + 10 * ios)) ] ||
	fail "$disk busy $busy_ms ms in the report, $io_ticks ms for the kernel"
others=$(col others)
note "$disk: $others requests without data"
[ "$others" -ge $READS ] || fail "$others requests without data counted, $READS serial reads"

"$BLKMAP" report --map -f csv "$T/rec.dat" >"$T/map.csv"
want=$(cat "/sys/block/$disk/serial")
got=$(awk -F, -v n="$(csv_col "$T/map.csv" name)" -v s="$(csv_col "$T/map.csv" serial)" \
	-v d="$disk" '$n == d {print $s}' "$T/map.csv")
note "$disk: serial '$got' in the map, '$want' in sysfs"
[ -n "$want" ] || fail "premise missing: $disk has an empty serial"
[ "$got" = "$want" ] || fail "$disk: serial '$got' in the map, '$want' in sysfs"
