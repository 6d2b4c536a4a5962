# The per-disk view agrees with the kernel's own counters: bytes read and
# written per disk and partition, against /sys/block/X/stat before and after.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/class/zram-control/hot_add ] || skip "no zram-control"
command -v addpart >/dev/null || skip "no addpart"

truncate -s 64M "$T/img"
L=$(new_loop "$T/img" -P)
l=$(basename "$L")
addpart "$L" 1 2048 40960
z=$(new_zram)

# stat fields 3 and 7: sectors read and written
sectors() { awk '{print $3, $7}' "$1"; }
snapshot() {
	echo "$l $(sectors /sys/block/$l/stat)"
	echo "${l}p1 $(sectors /sys/block/$l/${l}p1/stat)"
	echo "zram$z $(sectors /sys/block/zram$z/stat)"
}
snapshot >"$T/before"
"$BLKMAP" record -q -o "$T/rec.dat" -- sh -c "
	dd if=/dev/zero of=$L bs=64k seek=600 count=40 oflag=direct 2>/dev/null
	dd if=$L of=/dev/null bs=16k skip=10 count=50 iflag=direct 2>/dev/null
	dd if=/dev/zero of=${L}p1 bs=4k count=300 oflag=direct 2>/dev/null
	dd if=${L}p1 of=/dev/null bs=128k count=7 iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/zram$z bs=4k count=333 oflag=direct 2>/dev/null
	dd if=/dev/zram$z of=/dev/null bs=4k count=111 iflag=direct 2>/dev/null
" || fail "record failed"
snapshot >"$T/after"
"$BLKMAP" report --disks -f csv "$T/rec.dat" >"$T/disks.csv"
cat "$T/disks.csv"
while read -r name r0 w0; do
	set -- $(awk -v n="$name" '$1 == n {print $2, $3}' "$T/after")
	want_r=$(( ($1 - r0) * 512 )) want_w=$(( ($2 - w0) * 512 ))
	got=$(awk -F, -v n="$name" 'NR > 1 && $1 == n {r += $5; w += $6} END {print r + 0, w + 0}' \
		"$T/disks.csv")
	note "$name: kernel read $want_r written $want_w bytes; blkmap $got"
	[ "$got" = "$want_r $want_w" ] || fail "$name: blkmap says $got, the kernel $want_r $want_w"
	[ "$want_r" -gt 0 ] && [ "$want_w" -gt 0 ] || fail "$name: the workload did no I/O (premise)"
done <"$T/before"
