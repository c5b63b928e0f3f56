#!/usr/bin/env python3
"""Notification delivery under SIGKILL, on the simulated clock, with one deliverer per state.

Usage: Tests/e2e/deliveries.py [path/to/iapsim]   (run by `make test`; needs only python3)
IAPSIM_TEST_SEED=N replays a run: the seed is printed first.

A webhook on 127.0.0.1 (port 0) records every POST (the notificationUUID read from the JWS,
the status it answered, when) and checks what docs/NOTIFICATIONS.md promises:
- kills: `iapsim listen` killed with SIGKILL at random moments while purchases and the clock
  raise notifications, and the webhook answers after random delays, failing some first tries:
  no notification lost; every POST the history does not show was in flight at a kill, at most
  one per kill; the attempt history continuous (the first at the event, each retry on Apple's
  schedule, each result the webhook's answer);
- in flight: killed while the 7th of 10 is in flight, a restart re-posts that one only;
- schedule: a failing webhook in Production gets attempts at 0, 1, 13, 37, 85 and 157 hours
  after the event as the clock passes them, and no more; in the sandbox one;
- running clock: a running `listen` wakes at each retry's due time;
- one deliverer: a second `listen` on the same state refuses (exit 75) and posts nothing;
- full disk: when an attempt cannot be recorded, `listen` stops at once (exit 74) after the
  one POST it could not record.
"""
import base64, http.server, json, os, random, resource, shutil, signal, subprocess, sys, tempfile, threading, time
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/iapsim"))
SEED = int(os.environ.get("IAPSIM_TEST_SEED") or random.randrange(2**32))
print(f"deliveries: seed {SEED} (IAPSIM_TEST_SEED={SEED} replays it)")
RETRY_HOURS = [1, 12, 24, 48, 72]  # Apple, "Responding to App Store Server Notifications"
work = tempfile.mkdtemp(prefix="iapsim-deliveries-")
passed = failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def uuid_of(body):
    jws = json.loads(body)["signedPayload"]
    part = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["notificationUUID"]


class Webhook:
    """Records (uuid, status, monotonic time) of each POST; `answer(uuid, seen)` picks the status."""

    def __init__(self, answer=lambda uuid, seen: 200, delay=lambda: 0.0):
        self.posts, self.lock, self.answer, self.delay = [], threading.Lock(), answer, delay
        self.hold = None  # (uuid index to hold at, Event set when held, Event to release)
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                uuid = uuid_of(self.rfile.read(int(self.headers["Content-Length"])))
                with hook.lock:
                    seen = sum(1 for p in hook.posts if p[0] == uuid)
                    status = hook.answer(uuid, seen)
                    hook.posts.append((uuid, status, time.monotonic()))
                    pause, hold = hook.delay(), hook.hold
                if hold and len(hook.posts) == hold[0]:
                    hold[1].set()
                    hold[2].wait(30)
                time.sleep(pause)
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the listener was killed while this POST was in flight

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def by_uuid(self):
        with self.lock:
            result = {}
            for uuid, status, _ in self.posts:
                result.setdefault(uuid, []).append(status)
            return result


def session(name, environment):
    env = dict(os.environ, IAPSIM_STATE_DIR=f"{work}/{name}", IAPSIM_CATALOG=ROOT + "/catalog")
    for key in ("IAPSIM_CERTS_DIR", "IAPSIM_LOCK_TIMEOUT", "XDG_CONFIG_HOME"):
        env.pop(key, None)

    def run(*args, ok=(0,), extra=None):
        result = subprocess.run([BIN, *args], env=dict(env, **(extra or {})), capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=120)
        if result.returncode not in ok:
            raise SystemExit(f"FAIL: iapsim {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result

    run("clock", "freeze")
    run("clock", "set", "2030-01-01T00:00:00Z")
    run("settings", "set", "environment", environment)
    run("certs")  # the signing identity exists before any listener is started or killed
    return run, env


def history(run):
    return json.loads(run("notifications", "--json").stdout)["notifications"]


def parse(date):
    return datetime.strptime(date, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def schedule(start, count):
    """The first `count` attempt dates Apple's schedule gives a notification of `start`."""
    dates, at = [start], start
    for hours in RETRY_HOURS[:count - 1]:
        at += timedelta(hours=hours)
        dates.append(at)
    return dates


def listen(env, url, *extra):
    return subprocess.Popen([BIN, "listen", "--forward-to", url, "--timeout", "5", *extra], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def kills():
    """SIGKILL at random moments; then everything delivered and the history checked against the webhook."""
    rng, answers = random.Random(SEED), random.Random(SEED + 1)  # the main loop's, the webhook's (under its lock)

    def answer(uuid, seen):  # the first POST of about a third of the notifications is answered 500
        return 500 if seen == 0 and random.Random(f"{SEED} {uuid}").random() < 0.35 else 200

    hook = Webhook(answer, delay=lambda: answers.choice([0, 0, 0.002, 0.01, 0.03]))
    run, env = session("kills", "Production")
    run("buy", "com.example.app.pro.monthly", "--yes")
    run("clock", "advance", "P4Y")  # four dozen renewals to deliver
    actions = [["buy", "com.example.app.coins100", "--yes"], ["notify-test"], ["clock", "advance", "P1M"],
               ["clock", "advance", "PT5H"]]
    killed, deadline = 0, time.monotonic() + 60
    for _ in range(24):
        if time.monotonic() > deadline:
            break
        before = len(hook.posts)
        listener = listen(env, hook.url)
        for _ in range(rng.randrange(4)):
            run(*rng.choice(actions))
        wait = time.monotonic() + 2  # the kill comes while it delivers, when it has something to deliver
        while time.monotonic() < wait and len(hook.posts) == before:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.2))
        listener.send_signal(signal.SIGKILL)
        listener.wait(timeout=10)
        killed += 1
    hook.answer = lambda uuid, seen: 200
    run("clock", "advance", "P10D")
    run("listen", "--forward-to", hook.url, "--drain", "--timeout", "5")
    recorded = history(run)
    posts = hook.by_uuid()
    check("kills: notifications to deliver", len(recorded) > 30, str(len(recorded)))
    check("kills: nothing posted that is not recorded", set(posts) <= {n["notificationUUID"] for n in recorded})
    lost = [n["notificationUUID"] for n in recorded
            if not n["delivered"] or 200 not in posts.get(n["notificationUUID"], [])]
    check("kills: no notification lost", lost == [], str(lost[:3]))
    extra = {n["notificationUUID"]: len(posts.get(n["notificationUUID"], [])) - len(n["sendAttempts"])
             for n in recorded}
    check("kills: the history shows no attempt the webhook did not get", min(extra.values()) >= 0,
          str([u for u, e in extra.items() if e < 0][:3]))
    repeated = sum(e for e in extra.values() if e > 0)
    check(f"kills: each unrecorded POST was in flight at one of the {killed} kills", repeated <= killed,
          f"{repeated} POSTs the history does not show")
    broken = []
    for n in recorded:
        attempts, answers = n["sendAttempts"], posts.get(n["notificationUUID"], [])
        dates = [parse(a["attemptDate"]) for a in attempts]
        results = [a["sendAttemptResult"] for a in attempts]
        statuses = [a["httpStatus"] for a in attempts]
        answered = iter(answers)
        if (dates != schedule(parse(n["date"]), len(dates)) or results.count("SUCCESS") != 1
                or results[-1] != "SUCCESS" or not all(s in answered for s in statuses)
                or answers.count(200) > 1 + extra[n["notificationUUID"]]):
            broken.append((n["notificationType"], n["date"], list(zip(dates, results)), answers))
    check("kills: each history continuous, on Apple's schedule, as the webhook answered", broken == [],
          str(broken[:2]))
    print(f"kills: {killed} SIGKILLs, {len(recorded)} notifications, {repeated} posted again")
    hook.server.shutdown()


def in_flight():
    """Killed while the 7th of 10 is in flight: the first 6 stay delivered, the 7th is posted again."""
    hook = Webhook()
    run, env = session("in-flight", "Sandbox")
    for _ in range(10):
        run("notify-test")
    held, release = threading.Event(), threading.Event()
    hook.hold = (7, held, release)
    listener = listen(env, hook.url)
    check("in flight: the 7th POST arrives", held.wait(60))
    listener.send_signal(signal.SIGKILL)
    listener.wait(timeout=10)
    release.set()
    hook.hold = None
    run("listen", "--forward-to", hook.url, "--drain")
    recorded = history(run)
    posts = hook.by_uuid()
    counts = [len(posts.get(n["notificationUUID"], [])) for n in recorded]
    check("in flight: only the one in flight is posted twice", counts == [1] * 6 + [2] + [1] * 3, str(counts))
    check("in flight: all ten delivered", all(n["delivered"] for n in recorded))
    hook.server.shutdown()


def failing_schedule():
    """A webhook that always fails: Apple's schedule on the clock, in Production and the sandbox."""
    hook = Webhook(lambda uuid, seen: 500)
    for environment, expected in [("Production", [1, 4, 6, 6]), ("Sandbox", [1, 1, 1, 1])]:
        run, env = session("schedule-" + environment, environment)
        run("notify-test")
        counts = []
        for advance in [None, "P3D", "P30D", "P300D"]:
            if advance:
                run("clock", "advance", advance)
            run("listen", "--forward-to", hook.url, "--drain", ok=(0, 7))  # 7: an attempt failed
            counts.append(len(history(run)[0]["sendAttempts"]))
        test = history(run)[0]
        dates = [parse(a["attemptDate"]) for a in test["sendAttempts"]]
        check(f"schedule: {environment} attempts as the clock passes P3D, P30D, P300D", counts == expected, str(counts))
        check(f"schedule: {environment} attempts at 0, 1, 13, 37, 85, 157 hours after the event",
              dates == schedule(parse(test["date"]), len(dates)), str(dates))
        check(f"schedule: {environment} the webhook got each recorded attempt once",
              hook.by_uuid().get(test["notificationUUID"], []) == [500] * len(dates))
    hook.server.shutdown()


def running_clock():
    """One simulated day a real second: a running `listen` posts each retry when it falls due."""
    hook = Webhook(lambda uuid, seen: 500)
    run, env = session("running", "Production")
    run("settings", "set", "time-rate", "oneSecondIsOneDay")
    run("clock", "run")
    listener = listen(env, hook.url)
    run("notify-test")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(hook.posts) < 6:
        time.sleep(0.05)
    time.sleep(0.5)
    listener.send_signal(signal.SIGTERM)
    check("running clock: listen stops on SIGTERM with exit 0", listener.wait(timeout=20) == 0)
    # The first attempt waits for the listener's next look, and the second (due 1/24 s after the
    # event) goes with it; the 3rd to the 6th each wait for their due time, so the 4th to the 6th
    # come 24, 48 and 72 simulated hours (1, 2, 3 s) after the one before.
    arrivals = [t for _, _, t in hook.posts]
    spacing = [round(arrivals[i] - arrivals[i - 1] - RETRY_HOURS[i - 1] / 24, 3)
               for i in range(3, min(6, len(arrivals)))]
    check("running clock: six attempts, the retries posted when due (within 0.1 s)",
          len(arrivals) == 6 and all(abs(d) <= 0.1 for d in spacing), f"{len(arrivals)} POSTs, off by {spacing} s")
    test = history(run)[0]
    dates = [parse(a["attemptDate"]) for a in test["sendAttempts"]]
    check("running clock: recorded at their due times", dates == schedule(parse(test["date"]), 6), str(dates))
    hook.server.shutdown()


def one_deliverer():
    """A second `listen` on the same state refuses: never two deliverers."""
    hook = Webhook(delay=lambda: 0.05)
    run, env = session("one", "Sandbox")
    for _ in range(20):
        run("notify-test")
    first = listen(env, hook.url)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not hook.posts:
        time.sleep(0.01)
    second = run("listen", "--forward-to", hook.url, "--drain", ok=(0, 75), extra={"IAPSIM_LOCK_TIMEOUT": "0.2"})
    check("one deliverer: a second listen exits 75", second.returncode == 75, str(second.returncode))
    check("one deliverer: it says another listen delivers", "listen" in second.stderr and "pid" in second.stderr,
          second.stderr.strip())
    while time.monotonic() < deadline and len(hook.posts) < 20:
        time.sleep(0.05)
    first.send_signal(signal.SIGTERM)
    first.wait(timeout=20)
    counts = sorted(len(v) for v in hook.by_uuid().values())
    check("one deliverer: each of 20 posted once", counts == [1] * 20, str(counts))
    after = run("listen", "--forward-to", hook.url, "--drain")
    check("one deliverer: once it stopped, another may deliver", after.returncode == 0)
    hook.server.shutdown()


def full_disk():
    """Recording fails (a file-size limit stands in for a full disk): stop at once, exit 74."""
    hook = Webhook()
    run, env = session("full", "Sandbox")
    for _ in range(5):
        run("notify-test")
    journal = env["IAPSIM_STATE_DIR"] + "/notifications.jsonl"
    size = os.path.getsize(journal)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    result = subprocess.run([BIN, "listen", "--forward-to", hook.url, "--drain"], env=env, capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, timeout=60, preexec_fn=limit)
    check("full disk: exit 74", result.returncode == 74, f"{result.returncode}: {result.stderr.strip()}")
    check("full disk: one POST, the one it could not record", len(hook.posts) == 1, str(len(hook.posts)))
    check("full disk: the journal is as it was", os.path.getsize(journal) == size)
    run("listen", "--forward-to", hook.url, "--drain")
    counts = sorted(len(v) for v in hook.by_uuid().values())
    check("full disk: with room again, the rest follow and only that one twice", counts == [1, 1, 1, 1, 2], str(counts))
    hook.server.shutdown()


try:
    for part in (in_flight, failing_schedule, one_deliverer, full_disk, running_clock, kills):
        part()
finally:
    shutil.rmtree(work, ignore_errors=True)
print(f"deliveries: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
