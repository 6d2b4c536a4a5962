# Report memory does not grow with the number of events: the same recording
# repeated 60 times reads in about the memory of one copy.
# sanitized: no (AddressSanitizer keeps freed memory in quarantine: RSS says nothing)
. "$(dirname "$0")/lib.sh"
need_root
[ -x "${MKBIG:-}" ] || skip "no mkbig (make check builds it)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time"
[ "${SANITIZED:-}" != 1 ] || skip "AddressSanitizer keeps freed memory in quarantine: RSS says nothing"

truncate -s 128M "$T/img"
L=$(new_loop "$T/img")
"$BLKMAP" record -q -o "$T/one.dat" -- dd if=/dev/zero of="$L" bs=4k count=4000 oflag=direct \
	2>/dev/null || fail "record failed"
"$MKBIG" "$T/one.dat" "$T/many.dat" 60 || fail "mkbig failed"
for view in "" --disks --latency --top --stack --map; do
	for f in one many; do
		/usr/bin/time -f %M -o "$T/rss" "$BLKMAP" report $view "$T/$f.dat" >/dev/null 2>&1 ||
			fail "report $view $f failed"
		eval "rss_$f=$(cat "$T/rss")"
	done
	note "report ${view:-(events)}: peak RSS ${rss_one} KiB for $(stat -c %s "$T/one.dat") bytes," \
		"${rss_many} KiB for $(stat -c %s "$T/many.dat") bytes"
	[ $((rss_many - rss_one)) -lt 4096 ] || fail "report $view grows with the file: $rss_one -> $rss_many KiB"
	[ "$rss_many" -lt 65536 ] || fail "report $view needs $rss_many KiB"
done
