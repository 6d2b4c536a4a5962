#!/bin/sh
# trace.dat version 7, as trace-cmd writes it (sections; pages compressed with
# zstd, or not): every view reads exactly as the version 6 original does, and
# damaged version 7 files are refused with the offset of the problem, but a
# chunk that does not decompress costs only its own events.
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || fail "trace-cmd is needed to write version 7 files (scripts/install-deps)"
command -v python3 >/dev/null || fail "python3 is needed to damage files (scripts/install-deps)"
trace-cmd list -c 2>/dev/null | grep -q zstd || fail "this trace-cmd cannot compress with zstd"

for f in "$top"/tests/data/*.dat; do
	name=$(basename "$f" .dat)
	for compression in none zstd; do
		v7=$T/$name-$compression.dat
		trace-cmd convert -i "$f" -o "$v7" --file-version 7 --compression "$compression" \
			>"$T/convert" 2>&1 || fail "$name: trace-cmd convert: $(cat "$T/convert")"
		[ "$(head -c 11 "$v7" | tail -c 1)" = 7 ] || fail "$name: trace-cmd wrote no version 7 file"
		for view in "" --map --disks --latency --top --stack; do
			for format in text csv json; do
				"$BLKMAP" report $view -f $format "$f" >"$T/6.out" 2>"$T/6.err" ||
					fail "$name $view $format: version 6: $(cat "$T/6.err")"
				"$BLKMAP" report $view -f $format "$v7" >"$T/7.out" 2>"$T/7.err" ||
					fail "$name-$compression $view $format: $(cat "$T/7.err")"
				cmp -s "$T/6.out" "$T/7.out" ||
					fail "$name-$compression $view $format: not as version 6 reads"
				cmp -s "$T/6.err" "$T/7.err" ||
					fail "$name-$compression $view $format: other warnings than version 6's"
			done
		done
		note "$name, version 7 ($compression, $(wc -c <"$v7") bytes for $(wc -c <"$f")): every view as version 6"
	done
done

# Damaged files, made from the zstd and uncompressed versions of one recording.
python3 - "$T/vm61-module-zstd.dat" "$T/vm61-module-none.dat" "$T" <<'PY'
import struct, sys
zstd, none, out = sys.argv[1], sys.argv[2], sys.argv[3]
z = open(zstd, 'rb').read()
n = open(none, 'rb').read()

def options_at(d):
    i = d.index(b'\0', 10) + 1 + 2 + 4          # version, endianness, long size, page size
    for _ in range(2):                           # compression name and version
        i = d.index(b'\0', i) + 1
    return i, struct.unpack_from('<Q', d, i)[0]

def write(name, d):
    open('%s/bad-%s.dat' % (out, name), 'wb').write(d)

# Cut short (trace-cmd writes an options section last).
write('cut', z[:len(z) - 200])
# CPU 0's first chunk said to be larger than the file.
d = bytearray(z)
struct.pack_into('<I', d, 4096 + 4, 0x7fffffff)
write('chunk-size', bytes(d))
# Bytes of a compressed chunk changed: zstd's frame no longer decodes.
first_chunk = 4096 + 12
d = bytearray(z)
for k in range(8):
    d[first_chunk + 4 + k] ^= 0xff
open('%s/damaged-chunk.dat' % out, 'wb').write(bytes(d))
# A compression this reader does not know.
i = n.index(b'none\0')
write('compression', n[:i] + b'lz4\0\0' + n[i + 5:len(n)])
# The first options section names itself as the next one: a loop.
at_field, at = options_at(n)
sid, flags, desc, size = struct.unpack_from('<HHIQ', n, at)
o = at + 16
while True:
    oid, ln = struct.unpack_from('<HI', n, o)
    if oid == 0:
        d = bytearray(n)
        struct.pack_into('<Q', d, o + 6, at)
        write('options-loop', bytes(d))
        break
    o += 6 + ln
# The options offset past the end of the file.
d = bytearray(n)
struct.pack_into('<Q', d, at_field, len(n) + 4096)
write('options-offset', bytes(d))
PY
for f in "$T"/bad-*.dat; do
	set +e
	"$BLKMAP" report --disks "$f" >/dev/null 2>"$T/err"
	status=$?
	set -e
	[ $status -eq 1 ] || fail "$(basename "$f"): exit $status, not 1 ($(cat "$T/err"))"
	grep -q "offset [0-9]*:" "$T/err" || fail "$(basename "$f"): no offset in '$(cat "$T/err")'"
	note "$(basename "$f"): $(cat "$T/err")"
done
# A chunk that does not decompress costs its events, not the file's: the
# others read, and a warning names the chunk's offset and CPU.
# Events by time, CPU, pid, event, device, RWBS, sector and size: names may
# differ, as the map lost the records the chunk held.
events() { "$BLKMAP" report -f csv "$1" | cut -d, -f1-3,5,6,8-10; }
events "$T/damaged-chunk.dat" >"$T/damaged.out" 2>"$T/err" ||
	fail "damaged-chunk: exit $?: $(cat "$T/err")"
grep -q "offset [0-9]*: damaged ring-buffer page of CPU 0 (its compressed data does not decompress)" \
	"$T/err" || fail "damaged-chunk: no warning naming the chunk: '$(cat "$T/err")'"
events "$T/vm61-module-zstd.dat" >"$T/whole.out"
[ -s "$T/damaged.out" ] && [ "$(wc -l <"$T/damaged.out")" -lt "$(wc -l <"$T/whole.out")" ] ||
	fail "damaged-chunk: $(wc -l <"$T/damaged.out") lines, the whole file $(wc -l <"$T/whole.out")"
# Every event listed is the undamaged file's, in order.
missing=$(awk 'NR == FNR {want[++n] = $0; next} {while (i < n && want[++i] != $0); if (want[i] != $0) {print; exit}}' \
	"$T/whole.out" "$T/damaged.out")
[ -z "$missing" ] || fail "damaged-chunk: a line the file does not have: $missing"
note "damaged-chunk: $(wc -l <"$T/damaged.out") of $(wc -l <"$T/whole.out") events; $(cat "$T/err")"
