"""The time of a distributed rld LTO link of a program the size of Chromium on 100 workers,
modelled from what bench/dtlto.sh measured on SQLite (run by it; by hand:
`python3 bench/dtlto-model.py target/bench-dtlto sqlite`).

Measured, from rld's `--time` and the workers' own logs:
  S  the link's serial part: the in-process link's total less its partition compiles
     (reading the bitcode, summaries, the whole-program analyses, the final link);
  P  building and writing the jobs' bitcode on the linking host (1 worker's run);
  J  the jobs' own compile seconds, summed;
  o  each job's overhead in the distributor (the distributor's time with one worker, less
     J, per job: scheduling, moving the files, starting rld).
Modelled: every measured part scales with the program's size, R = Chromium's .text over
SQLite's (CHROMIUM_TEXT_MB, default 170: an x86-64 release chrome binary), which assumes the
serial part grows linearly (the analyses are near linear on these programs; a lower bound
if not); the program split into 4 jobs per worker; P spread over the linking host's
cores (LINK_CORES, default 2 as here, and 32); the jobs' critical path is a job's share of
the work or the largest job, whichever is longer:
  T(W) = S*R + P*R/cores + max(J*R/jobs * ceil(jobs/W), largest) + o*ceil(jobs/W)
"""
import math
import os
import re
import sys


def ms_of(text, pattern):
    m = re.search(r"^rld:\s+([\d.]+) ms\s+" + pattern, text, re.M)
    return float(m.group(1)) / 1e3 if m else None


def main(work, prog):
    local = open(os.path.join(work, f"{prog}.rld.0.time")).read()
    dist = open(os.path.join(work, f"{prog}.rld.1.time")).read()
    jobs = [float(x) for x in open(os.path.join(work, f"{prog}.rld.1.jobs")).read().split()]
    total = ms_of(local, r"total")
    llvm = ms_of(local, r"LTO: LLVM")
    serial = total - llvm
    prepare = ms_of(dist, r"distributed: \d+ jobs' bitcode written")
    distributor = ms_of(dist, r"distributed: the distributor ran")
    job_sum = sum(jobs)
    overhead = max(0.0, (distributor - job_sum) / len(jobs))
    instructions = sum(int(n) for n in re.findall(r"partition \d+ \((\d+) instructions", local))
    text_mb = float(os.environ.get("CHROMIUM_TEXT_MB", "170"))
    sqlite_text_mb = 1.13
    r = text_mb / sqlite_text_mb
    print(f"\n{prog}: {len(jobs)} jobs of {instructions} instructions in all")
    print(f"  serial part S          {serial:8.2f} s")
    print(f"  writing the jobs P     {prepare:8.2f} s")
    print(f"  jobs' compiles J       {job_sum:8.2f} s  (largest {max(jobs):.2f} s)")
    print(f"  overhead per job o     {overhead:8.3f} s")
    print(f"Chromium-sized (x{r:.0f}): .text {text_mb:.0f} MB")
    for cores in (int(os.environ.get("LINK_CORES", "2")), 32):
        for workers in (1, 10, 100):
            n = 4 * workers
            per_job = job_sum * r / n
            waves = math.ceil(n / workers)
            t = serial * r + prepare * r / cores + max(per_job * waves, max(jobs)) + overhead * waves
            print(
                f"  {workers:3d} workers, {cores:2d}-core linking host: {t:8.0f} s "
                f"(serial {serial * r:.0f} s, writing {prepare * r / cores:.0f} s, "
                f"jobs {per_job * waves:.0f} s)"
            )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
