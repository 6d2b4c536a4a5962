# record --compress: a trace.dat version 7 file, its pages compressed; blkmap
# reads every write from it, and what trace-cmd reads in it (zstd) or makes of
# it is what blkmap reads.
. "$(dirname "$0")/lib.sh"
need_root
command -v trace-cmd >/dev/null || fail "trace-cmd is needed (scripts/install-deps)"
N=64

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
DEV=$(devnum "$L")
for c in zstd zlib; do
	"$BLKMAP" record -q --compress=$c -o "$T/$c.dat" -- \
		dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct 2>/dev/null ||
		fail "record --compress=$c exited $?"
	assert_clean
	[ "$(head -c 11 "$T/$c.dat" | tail -c 1)" = 7 ] || fail "$c: not a version 7 file"
	# The compression's name follows the magic, "7\0", endianness, long and page size.
	[ "$(dd if="$T/$c.dat" bs=1 skip=18 count=4 2>/dev/null)" = $c ] ||
		fail "$c: the file names another compression"
	"$BLKMAP" report -f csv "$T/$c.dat" >"$T/$c.csv" || fail "$c: report failed"
	writes=$(awk -F, -v dev="$DEV" '$5 == "block_rq_issue" && $6 == dev && $8 ~ /W/' "$T/$c.csv" | wc -l)
	[ "$writes" -eq "$N" ] || fail "$c: $writes write requests on $DEV, not $N"
	note "--compress=$c: $writes writes, $(wc -c <"$T/$c.dat") bytes"
done
# trace-cmd reads the zstd one (this trace-cmd knows no zlib), and its own
# version 6 copy of it reads in blkmap as the original does.
trace-cmd list -c 2>/dev/null | grep -q zstd || fail "this trace-cmd cannot read zstd"
ours=$(awk -F, '$5 ~ /^block_/' "$T/zstd.csv" | wc -l)
theirs=$(trace-cmd report "$T/zstd.dat" 2>/dev/null | grep -c ' block_[a-z_]*:')
[ "$ours" -eq "$theirs" ] || fail "blkmap reads $ours block events, trace-cmd $theirs"
trace-cmd convert -i "$T/zstd.dat" -o "$T/v6.dat" --file-version 6 >/dev/null 2>&1 ||
	fail "trace-cmd cannot convert the zstd file to version 6"
for view in "" --map --disks; do
	"$BLKMAP" report $view "$T/zstd.dat" >"$T/a" || fail "report $view failed"
	"$BLKMAP" report $view "$T/v6.dat" >"$T/b" || fail "report $view of the copy failed"
	cmp -s "$T/a" "$T/b" || fail "report $view: the version 6 copy reads otherwise"
done
note "trace-cmd reads $theirs block events, as blkmap; its version 6 copy reads the same"
