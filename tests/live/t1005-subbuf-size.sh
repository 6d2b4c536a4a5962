# Sub-buffers larger than a page (Linux 6.8+): the file says so, and blkmap
# and trace-cmd read every write from it.
. "$(dirname "$0")/lib.sh"
need_root
[ -e "$(tracing_dir)/buffer_subbuf_size_kb" ] ||
	skip "this kernel has no buffer_subbuf_size_kb (needs Linux 6.8)"
subbufs_sizable || skip "this kernel refuses writes to buffer_subbuf_size_kb (t1008 records there)"
N=64

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
DEV=$(devnum "$L")
"$BLKMAP" record -q --subbuf-size=16 -o "$T/rec.dat" -- \
	dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct 2>/dev/null || fail "record exited $?"
assert_clean
# The page size is the u32 after the magic, "6\0", endianness and long size.
page=$(od -A n -t u4 -j 14 -N 4 "$T/rec.dat" | tr -d ' ')
[ "$page" -eq 16384 ] || fail "the file's page size is $page, not 16384"
"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv" || fail "report failed"
writes=$(awk -F, -v dev="$DEV" '$5 == "block_rq_issue" && $6 == dev && $8 ~ /W/' "$T/events.csv" | wc -l)
[ "$writes" -eq "$N" ] || fail "$writes write requests on $DEV, not $N"
if command -v trace-cmd >/dev/null; then
	ours=$(awk -F, '$5 ~ /^block_/' "$T/events.csv" | wc -l)
	theirs=$(trace-cmd report "$T/rec.dat" 2>/dev/null | grep -c ' block_[a-z_]*:')
	[ "$ours" -eq "$theirs" ] || fail "blkmap reports $ours block events, trace-cmd $theirs"
fi
note "16 KiB sub-buffers: $writes writes, page size $page"
