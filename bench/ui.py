#!/usr/bin/env python3
"""The Transaction Manager's speed (`iapsim ui`), for `make bench` (bench/bench.py) or alone:

    python3 bench/ui.py path/to/iapsim STATE_DIR

First load: every request the page makes when it opens (the page, its script and style, each
view's read, the first page of transactions and notifications, the timeline's rows), one
after another (a browser makes several at once, so this is an upper bound), on the state as it
is; cold is the first load after `iapsim ui` starts (nothing cached), warm the median of the
next five. Update: from the moment `iapsim buy` in another process has exited to the moment
the page's waiting request has answered the new version and the page has read the views that
show it again; median of five.
"""
import atexit, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time, urllib.request

CATALOG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "catalog")


def measure(iapsim, state):
    env = dict(os.environ, IAPSIM_STATE_DIR=state, IAPSIM_CATALOG=CATALOG)
    env.pop("IAPSIM_LOCALE", None)
    # The journal's index is built by the first command after the journal was written by hand.
    subprocess.run([iapsim, "status"], env=env, check=True, stdout=subprocess.DEVNULL)
    folder = tempfile.mkdtemp(prefix="iapsim-ui-bench-")
    atexit.register(shutil.rmtree, folder, True)
    port_file = os.path.join(folder, "port")
    server = subprocess.Popen([iapsim, "ui", "--port-file", port_file], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) and time.monotonic() < deadline:
            time.sleep(0.02)
        base = "http://127.0.0.1:%s" % open(port_file).read().strip()
        # The one-time sign-in address trades its secret for the session cookie.
        sign_in = server.stdout.readline().strip()[len("Open "):]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        opener.open(sign_in, timeout=30).read()

        def get(path):
            return opener.open(base + path, timeout=60).read()

        opening = ["/", "/app.css", "/app.js", "/views.js", "/buy.js", "/api/version", "/api/read/buy-options",
                   "/api/read/products", "/api/read/status", "/api/read/clock", "/api/read/settings",
                   "/api/read/accounts", "/api/read/triggers",
                   "/api/rows/transactions?offset=0&limit=50&sort=id&order=desc",
                   "/api/rows/notifications?order=desc&offset=0&limit=25", "/api/rows/notifications?order=desc&limit=500"]

        def load(paths):
            start = time.perf_counter()
            for path in paths:
                get(path)
            return time.perf_counter() - start

        cold = load(opening)
        warm = statistics.median(load(opening) for _ in range(5))
        again = ["/api/read/products", "/api/read/status", "/api/read/clock", "/api/read/settings",
                 "/api/rows/transactions?offset=0&limit=50&sort=id&order=desc",
                 "/api/rows/notifications?order=desc&offset=0&limit=25"]
        updates = []
        for _ in range(5):
            version = json.loads(get("/api/version"))["version"]
            answered = {}

            def wait():
                answered["version"] = json.loads(get("/api/version?since=" + version))["version"]
                answered["at"] = time.perf_counter()
            waiter = threading.Thread(target=wait)
            waiter.start()
            time.sleep(0.1)  # the waiting request is in
            subprocess.run([iapsim, "buy", "com.example.app.coins100", "--yes"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            changed = time.perf_counter()
            waiter.join(30)
            if answered.get("version", version) == version:
                raise RuntimeError("ui bench: the page was not told of a purchase")
            load(again)
            updates.append(time.perf_counter() - changed)
        return cold, warm, statistics.median(updates)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    cold, warm, update = measure(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    print("first load: %.1f ms cold, %.1f ms warm; update after a shell's purchase: %.1f ms"
          % (cold * 1000, warm * 1000, update * 1000))
