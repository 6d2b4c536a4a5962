# Every view, in every format it has, prints on the suite's recordings
# byte for byte what the build before lib/analyse's restructuring printed
# (tests/data/views: the expected outputs and how they were made): a change
# to the analysis or the report that alters any output, its warnings or its
# exit status fails here and shows the first lines that differ.
. "$(dirname "$0")/lib.sh"
command -v xz >/dev/null || { echo "SKIP: no xz to unpack tests/data/views/expected.tar.xz"; exit 77; }
mkdir "$T/want" "$T/got"
xz -dc "$top/tests/data/views/expected.tar.xz" | tar xf - -C "$T/want" ||
	fail "cannot unpack tests/data/views/expected.tar.xz"
views=$top/tests/lib/views.sh
for r in "$top"/tests/data/*.dat "$top"/tests/data/v7/*.dat; do
	"$views" "$BLKMAP" "$r" "$T/got/$(basename "$r" .dat)"
done
for r in "$top"/tests/data/real/*.dat; do
	"$views" --foreign "$BLKMAP" "$r" "$T/got/$(basename "$r" .dat)"
done
n=$(find "$T/want" -type f | wc -l)
[ "$n" -gt 100 ] || fail "tests/data/views/expected.tar.xz holds $n files, not every view's"
if ! diff -r "$T/want" "$T/got" >"$T/diff"; then
	head -40 "$T/diff" >&2
	fail "$(grep -c '^diff\|^Only' "$T/diff") outputs differ from tests/data/views (first lines above)"
fi
note "$n outputs, every view on $(ls "$T/want" | wc -l) recordings, byte for byte as before"
