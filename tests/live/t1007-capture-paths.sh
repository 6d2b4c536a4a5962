# The capture paths take the same events: recorders side by side, one by the
# default path (splice(2) of 16 KiB sub-buffers past the page cache where
# the kernel sizes sub-buffers, 6.8+; splice(2) of pages before, or where the
# kernel refuses the size), one by
# read(2), one by splice(2), one by splice(2) into a spool on ramfs (no
# O_DIRECT: through the page cache, a file per CPU), one with sub-buffers
# of 64 KiB where the kernel has them and, where the kernel maps its
# buffers (6.10+), one by the mapped buffer, each saying its path; a burst,
# then writes a second apart (partly filled pages, taken at a flush and
# finished later); every recording's writes on the device are the kernel's
# count.
. "$(dirname "$0")/lib.sh"
need_root
# Background jobs of sh ignore SIGINT: a failure stops the recorders with TERM.
stop_all() {
	for p in $paths; do
		[ ! -s "$T/$p.pid" ] || kill -TERM "$(cat "$T/$p.pid")" 2>/dev/null || true
	done
}
# They write out on TERM: wait, so that the ramfs holding one unmounts.
wait_all() {
	for p in $paths; do
		[ ! -s "$T/$p.pid" ] || wait "$(cat "$T/$p.pid")" 2>/dev/null || true
	done
}
trap 'st=$?; stop_all; wait_all; (exit $st); cleanup' EXIT

z=$(new_zram)
DEV=$(devnum zram$z)
paths="default read splice pagecache ramfs mapped"
sized=false
! subbufs_sizable || { sized=true; paths="$paths large"; }
mkdir "$T/ramfs"
mount -t ramfs blkmap-t1007 "$T/ramfs"
for p in $paths; do
	if [ $p = default ]; then
		"$BLKMAP" record -o "$T/$p.dat" 2>"$T/$p.err" &
	elif [ $p = pagecache ]; then
		BLKMAP_CAPTURE=splice "$BLKMAP" record -o "$T/ramfs/$p.dat" 2>"$T/$p.err" &
	elif [ $p = ramfs ]; then
		"$BLKMAP" record -o "$T/ramfs/$p.dat" 2>"$T/$p.err" &
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
direct="into the spool past the page cache (O_DIRECT)"
if $sized; then
	grep -q "pages by splice(2) of trace_pipe_raw (sub-buffers larger than a page) $direct" \
		"$T/default.err" || fail "the default path is not splice(2) past the page cache: $(cat "$T/default.err")"
	grep -q "pages by splice(2) of trace_pipe_raw (sub-buffers larger than a page) $direct" \
		"$T/large.err" || fail "64 KiB sub-buffers are not spliced: $(cat "$T/large.err")"
else
	grep -q "pages by splice(2) of trace_pipe_raw (sub-buffers of a page) $direct" "$T/default.err" ||
		fail "the default path is not splice(2) past the page cache where sub-buffers are pages: $(cat "$T/default.err")"
	[ ! -e "$(tracing_dir)/buffer_subbuf_size_kb" ] ||
		grep -q "the kernel refused buffer_subbuf_size_kb 16 KiB" "$T/default.err" ||
		fail "the kernel refuses sub-buffer sizes, and the recorder did not say so: $(cat "$T/default.err")"
fi
# The default on a spool without O_DIRECT: splice(2) still, through the page
# cache; pages of 4 KiB cost less so than by read(2) too (bench/floor on
# ramfs, 6.18: 0.042 against 0.081 CPU s per million events).
if $sized; then
	subbufs="sub-buffers larger than a page"
else
	subbufs="sub-buffers of a page"
fi
grep -q "pages by splice(2) of trace_pipe_raw ($subbufs) into the spool through the page cache (the file system has no O_DIRECT)" \
	"$T/ramfs.err" || fail "the default on ramfs is not splice(2) through the page cache: $(cat "$T/ramfs.err")"
grep -q "pages by read(2) of trace_pipe_raw (BLKMAP_CAPTURE=read)" "$T/read.err" ||
	fail "BLKMAP_CAPTURE=read did not read: $(cat "$T/read.err")"
grep -q "pages by splice(2) of trace_pipe_raw (BLKMAP_CAPTURE=splice) $direct" "$T/splice.err" ||
	fail "BLKMAP_CAPTURE=splice did not splice past the page cache: $(cat "$T/splice.err")"
grep -q "pages by splice(2) of trace_pipe_raw (BLKMAP_CAPTURE=splice) into the spool through the page cache (the file system has no O_DIRECT)" \
	"$T/pagecache.err" || fail "a spool on ramfs is not written through the page cache: $(cat "$T/pagecache.err")"

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
# Past the page cache means none of the spool is in it but the page of the
# byte that set its size at the start; through it, the pages just written are.
resident() { python3 "$(dirname "$0")/../lib/page_cache.py" "$T"/.blkmap-"$(cat "$T/$1.pid")"-*.spool/pages; }
cachestat=0
resident read >/dev/null 2>&1 || cachestat=$?
if [ "$(stat -f -c %T "$T")" = tmpfs ]; then
	note "SKIP the page cache check: the spool is on tmpfs, which is the page cache"
elif [ $cachestat -eq 2 ]; then
	note "SKIP the page cache check: this kernel has no cachestat(2) (6.5+)"
else
	past="splice"
	! $sized || past="$past default"
	for p in $past; do
		r=$(resident $p) || fail "$p: no spool pages file to look at"
		[ "$r" -le 4096 ] || fail "$p: $r bytes of a spool written past the page cache are in it"
	done
	r=$(resident read) || fail "read: no spool pages file to look at"
	[ "$r" -gt 4096 ] || fail "read: none of a spool written through the page cache is in it"
	note "spool in the page cache: a page at most by splice(2), $r bytes by read(2)"
fi
stop_all
for p in $paths; do
	wait "$(cat "$T/$p.pid")" || fail "$p: record exited $?: $(cat "$T/$p.err")"
done
assert_clean
mv "$T/ramfs/pagecache.dat" "$T/ramfs/ramfs.dat" "$T/"

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
