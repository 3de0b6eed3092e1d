"""A distributor for lld's and rld's distributed LTO interface on a Dask cluster
(https://distributed.dask.org: a scheduler, and workers on any number of hosts).

    --thinlto-distributor=/path/to/python          (a Python with `distributed` installed)
    --thinlto-distributor-arg=/path/to/scripts/dtlto-dask.py
    --thinlto-distributor-arg=--scheduler=tcp://HOST:PORT   (or $DASK_SCHEDULER_ADDRESS)
    [--thinlto-distributor-arg=--timeout=SECONDS]
    [--thinlto-distributor-arg=--shared-fs]   (see below)

The linker runs it with the JSON file last. Each job becomes a Dask task that carries the
bytes of its input files (`common.inputs` and the job's `inputs`), so a worker needs no
file system shared with the linker, only the remote compiler (`common.args[0]`, an rld at
that path). On the worker, the task writes the inputs into a private directory, runs
`common.args` + the job's `args` with every input and output path rewritten to that
directory, and sends back the outputs' bytes, which are written where the JSON names them
(each whole, or not at all). A worker that dies in the middle of a job is Dask's to handle:
the scheduler runs the job again on another worker (up to its `allowed-failures`). A job
whose compiler was killed by a signal while its worker lived on (the host going down kills
the compiler first; or the kernel's out-of-memory killer) is run again too, up to
`SIGNAL_RETRIES` times: a signal says nothing about the input.

With --shared-fs the files are not moved: each job runs in the linker's directory on a
file system the workers share with it. lld's own jobs need that: a ThinLTO job's index file
names the modules it imports by their paths on the linker's host.

Each worker prints a line when a job starts and ends (its name and address, the job's
first output), so its own log shows what it ran. Exits 0 when every job succeeded, else 1
with the reason on standard error.
"""
import json
import os
import sys
import time

# How many times a job whose compiler died of a signal is run again.
SIGNAL_RETRIES = 3


def run_shared(args, outputs, cwd):
    """Runs on a worker: one job, in the linker's directory on a shared file system."""
    import subprocess

    from distributed import get_worker

    worker = get_worker()
    where = f"worker {worker.name} at {worker.address}"
    print(f"dtlto-dask: {where}: start {outputs[0]}", flush=True)
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, cwd=cwd)
    took = time.monotonic() - start
    print(
        f"dtlto-dask: {where}: end {outputs[0]} status={proc.returncode} seconds={took:.3f}",
        flush=True,
    )
    return {
        "status": proc.returncode,
        "stderr": proc.stderr.decode(errors="replace"),
        "where": where,
        "shared": True,
        "outputs": {},
    }


def run_job(args, outputs, files):
    """Runs on a worker: one job, in a directory of its own."""
    import shutil
    import subprocess
    import tempfile

    from distributed import get_worker

    worker = get_worker()
    where = f"worker {worker.name} at {worker.address}"
    print(f"dtlto-dask: {where}: start {outputs[0]}", flush=True)
    start = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="dtlto-job-")
    try:
        mapping = {}
        for i, (path, data) in enumerate(files.items()):
            local = os.path.join(tmp, f"in{i}-{os.path.basename(path)}")
            with open(local, "wb") as f:
                f.write(data)
            mapping[path] = local
        for i, path in enumerate(outputs):
            mapping[path] = os.path.join(tmp, f"out{i}-{os.path.basename(path)}")

        def rewrite(arg):
            if arg in mapping:
                return mapping[arg]
            key, eq, value = arg.partition("=")
            if eq and value in mapping:
                return key + "=" + mapping[value]
            return arg

        command = [rewrite(a) for a in args]
        proc = subprocess.run(command, capture_output=True)
        result = {
            "status": proc.returncode,
            "stderr": proc.stderr.decode(errors="replace"),
            "where": where,
            "outputs": {},
        }
        for path in outputs:
            local = mapping[path]
            if os.path.exists(local):
                with open(local, "rb") as f:
                    result["outputs"][path] = f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    took = time.monotonic() - start
    print(
        f"dtlto-dask: {where}: end {outputs[0]} status={result['status']} seconds={took:.3f}",
        flush=True,
    )
    return result


def write_whole(path, data):
    partial = f"{path}.partial{os.getpid()}"
    with open(partial, "wb") as f:
        f.write(data)
    os.replace(partial, path)


def main(argv):
    scheduler = os.environ.get("DASK_SCHEDULER_ADDRESS")
    timeout = None
    shared = False
    for a in argv[1:-1]:
        if a.startswith("--scheduler="):
            scheduler = a[len("--scheduler="):]
        elif a.startswith("--timeout="):
            timeout = float(a[len("--timeout="):])
        elif a == "--shared-fs":
            shared = True
        else:
            print(f"dtlto-dask: unknown option {a}", file=sys.stderr)
            return 2
    if len(argv) < 2 or not scheduler:
        print("usage: dtlto-dask.py --scheduler=ADDRESS FILE.json", file=sys.stderr)
        return 2
    with open(argv[-1], encoding="utf-8") as f:
        spec = json.load(f)
    common_args = spec["common"]["args"]

    def contents(paths):
        out = {}
        for p in paths:
            with open(p, "rb") as f:
                out[p] = f.read()
        return out

    common_files = {} if shared else contents(spec["common"]["inputs"])

    from distributed import Client, as_completed

    with Client(scheduler, timeout=timeout or 30) as client:

        def submit(job, attempt):
            key = f"dtlto-{os.getpid()}-{job['outputs'][0]}"
            if attempt:
                key += f"-again{attempt}"
            args = common_args + job["args"]
            if shared:
                return client.submit(
                    run_shared, args, job["outputs"], os.getcwd(), key=key, pure=False
                )
            files = dict(common_files)
            files.update(contents(job["inputs"]))
            return client.submit(run_job, args, job["outputs"], files, key=key, pure=False)

        futures = {}
        for job in spec["jobs"]:
            futures[submit(job, 0)] = (job, 0)
        failed = False
        deadline = time.monotonic() + timeout if timeout else None
        try:
            running = as_completed(futures, timeout=timeout)
            for future in running:
                job, attempt = futures[future]
                try:
                    result = future.result()
                except Exception as e:  # the job could not run (its workers died, ...)
                    print(f"dtlto-dask: job for {job['outputs'][0]} failed: {e}", file=sys.stderr)
                    failed = True
                    continue
                if result["status"] < 0 and attempt < SIGNAL_RETRIES:
                    print(
                        f"dtlto-dask: job for {job['outputs'][0]} on {result['where']}: "
                        f"compiler killed by signal {-result['status']}; running it again",
                        file=sys.stderr,
                    )
                    again = submit(job, attempt + 1)
                    futures[again] = (job, attempt + 1)
                    running.add(again)
                    continue
                if result["status"] != 0:
                    sys.stderr.write(result["stderr"])
                    print(
                        f"dtlto-dask: job for {job['outputs'][0]} failed on {result['where']}: "
                        f"exit status {result['status']}",
                        file=sys.stderr,
                    )
                    failed = True
                    continue
                for path in job["outputs"]:
                    if path in result["outputs"]:
                        write_whole(path, result["outputs"][path])
                if not result.get("shared") and job["outputs"][0] not in result["outputs"]:
                    print(f"dtlto-dask: job for {job['outputs'][0]} left no output", file=sys.stderr)
                    failed = True
                if deadline and time.monotonic() > deadline:
                    raise TimeoutError
        except TimeoutError:
            print(f"dtlto-dask: the jobs did not finish within {timeout} s", file=sys.stderr)
            failed = True
        if failed:
            client.cancel(list(futures))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
