# report --phases against the kernel's own counters (/proc/diskstats read
# inside the recording) on this machine's kernel: a loop device under
# mq-deadline, recorded with --events=phases, fio's direct random reads and
# writes beside buffered sequential writes that merge. The bios merged into
# requests and the requests merged into others are the kernel's merged
# reads, writes and discards, exactly; the requests issued with data are its
# completed reads and writes but for the empty writes with PREFLUSH that
# fsync and sync make (the kernel counts them among the writes; they carry
# no data, so no phase), at most one in a thousand here. Both jobs are held
# to a rate (about 40 000 events a second in all): unbounded, the buffered
# writes alone made 1.7 M events in 2 s, and on a 2-CPU machine busy with
# other work (the VM tests' lane) the recorder then lost events, which leaves
# nothing to compare.
. "$(dirname "$0")/lib.sh"
need_root
command -v fio >/dev/null || skip "no fio"

truncate -s 128M "$T/img"
L=$(new_loop "$T/img")
l=$(basename "$L")
grep -q mq-deadline "/sys/block/$l/queue/scheduler" || skip "no mq-deadline for $l"
echo mq-deadline >"/sys/block/$l/queue/scheduler"

cat >"$T/job.fio" <<JOB
[global]
filename=$L
runtime=2
time_based
[random]
ioengine=libaio
direct=1
iodepth=16
iodepth_batch_submit=4
bs=4k
size=60m
rw=randrw
rate_iops=2000
[sequential]
ioengine=psync
offset=64m
size=60m
bs=4k
rw=write
rate=16m
end_fsync=1
JOB
"$BLKMAP" record --events=phases -o "$T/rec.dat" -- sh -c "
	cat /proc/diskstats >$T/stat.before
	fio --output=$T/fio.out $T/job.fio || exit 1
	sync
	cat /proc/diskstats >$T/stat.after
" 2>"$T/record.err" || { cat "$T/record.err" "$T/fio.out"; fail "record or fio failed"; }
grep -q "lost 0 " "$T/record.err" || { cat "$T/record.err"; fail "events were lost: the counts cannot agree"; }
"$BLKMAP" report --phases -f csv --disk "$l" "$T/rec.dat" >"$T/phases.csv" ||
	fail "report --phases failed"
python3 - "$T/stat.before" "$T/stat.after" "$T/phases.csv" "$l" <<'PY' || fail "--phases is not the kernel's"
import csv, sys

def stat(path, name):
    for line in open(path):
        f = line.split()
        if f[2] == name:
            v = [int(x) for x in f[3:]]
            return {"ios": v[0] + v[4] + (v[11] if len(v) > 11 else 0),
                    "merges": v[1] + v[5] + (v[12] if len(v) > 12 else 0)}
    sys.exit(f"{name} is not in {path}")

before, after = stat(sys.argv[1], sys.argv[4]), stat(sys.argv[2], sys.argv[4])
kernel = {k: after[k] - before[k] for k in before}
row = [r for r in csv.DictReader(open(sys.argv[3])) if r["op"] == "all"]
assert len(row) == 1, f"{len(row)} rows for all operations"
ours = {"ios": int(row[0]["issued"]), "merges": int(row[0]["merges"]) + int(row[0]["rq_merges"])}
print(f"# {sys.argv[4]}: blkmap {ours}, the kernel {kernel}; "
      f"{row[0]['plugs']} plugs, {row[0]['bios_per_request']} bios a request")
assert kernel["merges"] > 0, "nothing merged: the test proves nothing"
assert ours["merges"] == kernel["merges"], "the merges differ"
assert 0 <= kernel["ios"] - ours["ios"] <= kernel["ios"] / 1000 + 1, "the requests differ"
PY
# iostat's merges (rrqm/s, wrqm/s) in --disks and --interval: the kernel's
# reads and writes merged (fields 2 and 6), each interval's where they happened.
"$BLKMAP" report --disks -f csv --disk "$l" "$T/rec.dat" >"$T/disks.csv" ||
	fail "report --disks failed"
"$BLKMAP" report --interval 0.5s -f csv --disk "$l" "$T/rec.dat" >"$T/interval.csv" ||
	fail "report --interval failed"
python3 - "$T/stat.before" "$T/stat.after" "$T/disks.csv" "$T/interval.csv" "$l" <<'PY' ||
import csv, sys

def stat(path, name):
    for line in open(path):
        f = line.split()
        if f[2] == name:
            return int(f[4]), int(f[8])
    sys.exit(f"{name} is not in {path}")

b, a = stat(sys.argv[1], sys.argv[5]), stat(sys.argv[2], sys.argv[5])
kernel = (a[0] - b[0], a[1] - b[1])
rows = list(csv.DictReader(open(sys.argv[3])))
assert len(rows) == 1, f"{len(rows)} --disks rows for {sys.argv[5]}"
d = rows[0]
assert d["rmerges"] != "" and d["wmerges"] != "", "--disks: merges recorded but null"
ours = (int(d["rmerges"]), int(d["wmerges"]))
secs = float(d["seconds"])
rate = (float(d["rrqm_s"]), float(d["wrqm_s"]))
bins = [r for r in csv.DictReader(open(sys.argv[4]))]
summed = (sum(int(r["rmerges"] or 0) for r in bins), sum(int(r["wmerges"] or 0) for r in bins))
print(f"# {sys.argv[5]}: reads, writes merged: blkmap {ours} ({rate[0]:.1f}, {rate[1]:.1f}/s "
      f"over {secs:.2f} s), its intervals {summed}, the kernel {kernel}")
assert kernel[1] > 0, "no write merged: the test proves nothing"
assert ours == kernel, "--disks' merges are not the kernel's fields 2 and 6"
assert summed == ours, "--interval's merges do not add up to --disks'"
for k in range(2):
    assert abs(rate[k] * secs - ours[k]) <= ours[k] / 100 + 1, "rrqm_s or wrqm_s is not merges/s"
PY
	fail "iostat's merges are not the kernel's"
assert_clean
