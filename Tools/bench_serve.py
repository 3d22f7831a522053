#!/usr/bin/env python3
"""Load benchmark for `swiftseg serve` beside rembg's `rembg s`, on loopback, for PERF.md.

    python3 Tools/bench_serve.py [--requests 2000] [--clients 1,4,16] [--rounds 1] [--concurrent 2]
                                 [--rembg PATH] [--rembg-requests 300] [--baseline PATH]
    python3 Tools/bench_serve.py --mixed 2000        # every endpoint in turn: RSS after the 200th and the last

For each round, client count and server (alternating: swiftseg, then rembg if given), it starts the server fresh
on 127.0.0.1, waits until it answers, sends 10 warm-up requests, then `--requests` requests from `--clients`
threads, each with its own keep-alive connection, POSTing the committed sample photos in turn to
`/api/remove` (multipart field `file`, `model=u2netp`: the endpoint both servers share). It samples the server's
RSS (/proc/PID/status) after the 200th request and at the end, and its peak (VmHWM), and prints one JSON line per
run: requests/s, latency median, 95th and 99th percentile, errors, 503s (with `--honour-retry-after` each client
sleeps a 503's Retry-After and tries again, as a polite client does), RSS, and the CPU time per request of the server
(/proc/PID/stat) and of this client, which shares the cores with it. Bounded: every run stops at `--time-limit`
seconds. Standard library only (no Tools venv needed for the client).

With `--baseline` (another build's swiftseg binary) that build runs too, right after this one in every round, and
with `--rounds` above 1 the last lines summarise each client count: the ratios of requests/s round by round (this
build over rembg's, and over the baseline's) and their medians. This VM's load moves every server by ±15 % from
one minute to the next, so only ratios measured in the same round mean much.

rembg: `--rembg /path/to/venv/bin/rembg` (pip install "rembg[cpu,cli]"; its u2netp.onnx must already be in
~/.u2net, as rembg downloads models from GitHub, which is not reachable here).
"""

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = [os.path.join(HERE, "..", "Tests", "Fixtures", "photos", f)
          for f in ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "coins.png"]]


def multipart(data, name):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nu2netp\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def memory(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return values


def cpu_seconds(pid):
    """User + system CPU seconds the process has used (/proc/PID/stat, clock ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds():
    times = os.times()
    return times.user + times.system


def wait_ready(port, process, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"bench_serve: the server exited with {process.returncode}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/")
            c.getresponse().read()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("bench_serve: the server did not answer in time")


RETRIES = 30  # a polite client's tries after its first, honouring Retry-After each time


def run(kind, command, port, clients, requests, time_limit, bodies, honour_retry_after=False):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(port, process)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for i in range(10):
            body, ctype = bodies[i % len(bodies)]
            c.request("POST", "/api/remove", body=body, headers={"Content-Type": ctype})
            r = c.getresponse()
            r.read()
            if r.status != 200:
                raise SystemExit(f"bench_serve: warm-up request answered {r.status}")
        c.close()
        lock = threading.Lock()
        state = {"next": 0, "done": 0, "errors": 0, "refused": 0, "latencies": [], "rss_at_200": None}
        stop_at = time.time() + time_limit

        def client():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            while True:
                with lock:
                    if state["next"] >= requests or time.time() > stop_at:
                        return
                    i = state["next"]
                    state["next"] += 1
                body, ctype = bodies[i % len(bodies)]
                t0 = time.perf_counter()
                for attempt in range(RETRIES + 1):
                    wait = None
                    try:
                        conn.request("POST", "/api/remove", body=body, headers={"Content-Type": ctype})
                        r = conn.getresponse()
                        r.read()
                        ok = r.status == 200
                        if r.status == 503:
                            with lock:
                                state["refused"] += 1
                            wait = r.getheader("Retry-After")
                            conn.close()  # the server closes a refused request's connection (its body unread)
                            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                    except (OSError, http.client.HTTPException):
                        ok = False
                        conn.close()
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                    if not (honour_retry_after and wait and wait.isdigit()) or attempt == RETRIES:
                        break
                    time.sleep(int(wait))  # as a polite client does: the latency counts the waits
                seconds = time.perf_counter() - t0
                with lock:
                    state["done"] += 1
                    state["latencies"].append(seconds)
                    state["errors"] += 0 if ok else 1
                    if state["done"] == 200:
                        state["rss_at_200"] = memory(process.pid)["VmRSS"]

        threads = [threading.Thread(target=client) for _ in range(clients)]
        server_cpu0, client_cpu0 = cpu_seconds(process.pid), own_cpu_seconds()
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        server_cpu, client_cpu = cpu_seconds(process.pid) - server_cpu0, own_cpu_seconds() - client_cpu0
        end = memory(process.pid)
        lat = sorted(state["latencies"])
        result = {
            "server": kind, "clients": clients, "requests": state["done"], "errors": state["errors"],
            "seconds": round(elapsed, 2), "requests_per_s": round(state["done"] / elapsed, 3),
            "latency_ms_median": round(1000 * statistics.median(lat), 1),
            "latency_ms_p95": round(1000 * lat[int(0.95 * (len(lat) - 1))], 1),
            "latency_ms_p99": round(1000 * lat[int(0.99 * (len(lat) - 1))], 1),
            "refusals_503": state["refused"],
            "rss_mb_at_200": round(state["rss_at_200"], 1) if state["rss_at_200"] else None,
            "rss_mb_end": round(end["VmRSS"], 1), "peak_rss_mb": round(end["VmHWM"], 1),
            # CPU time per request of the server (all its threads) and of this client (sharing the cores).
            "server_cpu_ms_per_request": round(1000 * server_cpu / max(state["done"], 1), 1),
            "client_cpu_ms_per_request": round(1000 * client_cpu / max(state["done"], 1), 1),
        }
        if result["rss_mb_at_200"]:
            result["rss_growth_200_to_end"] = round(end["VmRSS"] / state["rss_at_200"] - 1, 4)
        return result
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


MIXED = ["/v1/cutout", "/v1/subjects", "/v1/classify?top=3", "/v1/rectangles", "/v1/rectangles?extract=1",
         "/v1/cutout?effect=blur", "/api/remove?om=true", "/v1/cutout?mask=1&format=jpeg"]


def run_mixed(swiftseg, port, requests):
    """One client cycling through every POST endpoint (raw bodies; a document photo for every other rectangles
    request): swiftseg's RSS after the 200th and the last request, and the statuses seen."""
    process = subprocess.Popen([swiftseg, "serve", "--host", "127.0.0.1", "--port", str(port), "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(port, process)
        photos = []
        for path in PHOTOS:
            with open(path, "rb") as f:
                photos.append(f.read())
        with open(os.path.join(HERE, "..", "Tests", "Fixtures", "rectangles", "a4-upright.jpg"), "rb") as f:
            card = f.read()
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        statuses, at_200, t0 = {}, None, time.perf_counter()
        for i in range(requests):
            target = MIXED[i % len(MIXED)]
            c.request("POST", target, body=card if "rectangles" in target and i % 2 else photos[i % len(photos)])
            r = c.getresponse()
            r.read()
            statuses[r.status] = statuses.get(r.status, 0) + 1
            if i + 1 == 200:
                at_200 = memory(process.pid)["VmRSS"]
        end = memory(process.pid)
        return {"server": "swiftseg", "mode": "mixed", "requests": requests, "seconds": round(time.perf_counter() - t0, 1),
                "statuses": statuses, "rss_mb_at_200": round(at_200, 1) if at_200 else None,
                "rss_mb_end": round(end["VmRSS"], 1), "peak_rss_mb": round(end["VmHWM"], 1)}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--rembg-requests", type=int, default=300, help="requests per rembg run (it is slower)")
    p.add_argument("--clients", default="1,4,16")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--time-limit", type=float, default=900, help="seconds per run at most")
    p.add_argument("--swiftseg", default=os.path.join(HERE, "..", ".build", "release", "swiftseg"))
    p.add_argument("--rembg", help="rembg's executable (rembg[cli]); omitted: swiftseg only")
    p.add_argument("--baseline", help="another build's swiftseg binary, run after this one in every round")
    p.add_argument("--concurrent", type=int, default=2, help="swiftseg's lanes (--concurrent)")
    p.add_argument("--threads", type=int, help="swiftseg's --threads (default: its own, all cores)")
    p.add_argument("--port", type=int, default=7077)
    p.add_argument("--max-queue", type=int, default=32,
                   help="swiftseg's --max-queue (32: throughput runs never see a 503; 8, the server's default, to see them)")
    p.add_argument("--honour-retry-after", action="store_true",
                   help="on a 503, sleep its Retry-After and send again (up to 30 times); latency counts the waits")
    p.add_argument("--mixed", type=int, metavar="N",
                   help="instead: N requests from one client cycling through every POST endpoint (RSS over a long run)")
    a = p.parse_args()
    if a.mixed:
        print(json.dumps(run_mixed(a.swiftseg, a.port, a.mixed)), flush=True)
        return
    bodies = []
    for path in PHOTOS:
        with open(path, "rb") as f:
            bodies.append(multipart(f.read(), os.path.basename(path)))
    rates = {}  # (server, clients) -> requests/s of each round
    for _ in range(a.rounds):
        for clients in [int(c) for c in a.clients.split(",")]:
            def swiftseg(kind, binary, port):
                return (kind, [binary, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--concurrent", str(a.concurrent), "--max-queue", str(a.max_queue), "--quiet"]
                        + (["--threads", str(a.threads)] if a.threads else []), a.requests)
            servers = [swiftseg("swiftseg", a.swiftseg, a.port)]
            if a.baseline:
                servers.append(swiftseg("baseline", a.baseline, a.port + 2))
            if a.rembg:
                servers.append(("rembg", [a.rembg, "s", "--host", "127.0.0.1", "--port", str(a.port + 1),
                                          "--log_level", "error", "--no-ui"], a.rembg_requests))
            for kind, command, count in servers:
                port = int(command[command.index("--port") + 1])
                result = run(kind, command, port, clients, count, a.time_limit, bodies, a.honour_retry_after)
                rates.setdefault((kind, clients), []).append(result["requests_per_s"])
                print(json.dumps(result), flush=True)
    if a.rounds > 1:
        for clients in [int(c) for c in a.clients.split(",")]:
            ours = rates[("swiftseg", clients)]
            summary = {"summary": True, "clients": clients, "swiftseg_requests_per_s": ours}
            for other in ["rembg", "baseline"]:
                if (other, clients) in rates:
                    ratios = [round(x / y, 3) for x, y in zip(ours, rates[(other, clients)]) if y > 0]
                    summary[f"ratio_vs_{other}"] = ratios
                    summary[f"median_ratio_vs_{other}"] = round(statistics.median(ratios), 3) if ratios else None
            print(json.dumps(summary), flush=True)

if __name__ == "__main__":
    main()
