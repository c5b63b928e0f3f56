"""Many customers: a store of 1,000 customers with 100 transactions each against a store of one.

`buy`, `status` and Get Transaction Info for one customer must cost the same (within 1.2×)
however many other customers the store holds: a command for one customer reads the app's
small files and that customer's, nothing of the others. Run by bench/bench.py (`make bench`);
alone: python3 bench/customers.py path/to/iapsim.
"""
import http.client, json, os, statistics, subprocess, sys, tempfile, time

IDS_PER_CUSTOMER = 1_000_000_000_000


def store(path, customers, per_customer=100):
    """A state folder of `customers` customers c1…cN (numbers 1…N), each with `per_customer`
    consumable purchases in its journal, written directly."""
    os.makedirs(path + "/accounts", mode=0o700, exist_ok=True)
    line = ('{"currency":"USD","id":%d,"isUpgraded":false,"originalID":%d,"originalPurchaseDate":"2026-01-01T00:00:00Z",'
            '"price":"0.99","productID":"com.example.app.coins100","productType":"consumable",'
            '"purchaseDate":"2026-01-01T00:00:00Z","purchasedQuantity":1,"reason":"purchase","storefrontCountryCode":"USA"}\n')
    for number in range(1, customers + 1):
        folder = f"{path}/accounts/c{number}"
        os.makedirs(folder, mode=0o700, exist_ok=True)
        base = number * IDS_PER_CUSTOMER
        with open(folder + "/transactions.jsonl", "w") as out:
            out.write("".join(line % (base + i, base + i) for i in range(1, per_customer + 1)))
        snapshot = {
            "schemaVersion": 5,
            "app": {"purchasedProductIdentifiers": [], "consumables": {"com.example.app.coins100": per_customer}},
            "account": {"nextTransactionID": base + per_customer + 1, "customerNumber": number,
                        "transactionCount": per_customer, "journalLength": os.path.getsize(folder + "/transactions.jsonl"),
                        "current": []},
            "simulation": {"settings": {}, "pending": [], "unfinishedTransactionIDs": [], "renewals": []},
        }
        with open(folder + "/purchases.json", "w") as out:
            json.dump(snapshot, out)
    with open(path + "/customers.json", "w") as out:
        json.dump({"nextNumber": customers + 1,
                   "customers": [{"name": f"c{n}", "number": n} for n in range(1, customers + 1)]}, out)
    with open(path + "/store.json", "w") as out:
        json.dump({"storeVersion": 1, "simulation": {"settings": {}},
                   "notifications": {"count": 0, "journalLength": 0}}, out)


def measure(iapsim, work, medians, row, environment, serve=None, token=None):
    one, many = os.path.join(work, "customers-1"), os.path.join(work, "customers-1000")
    store(one, 1)
    store(many, 1000)
    # The one customer of the small store, and one in the middle of the large one.
    cases = {"one": (one, "c1", 1), "many": (many, "c500", 500)}
    commands = {}
    for name, (path, account, _) in cases.items():
        env = dict(environment(path), IAPSIM_ACCOUNT=account)
        commands["buy " + name] = ([iapsim, "buy", "com.example.app.coins100", "--yes"], env)
        commands["status " + name] = ([iapsim, "status"], env)
    times, peaks = medians(commands)
    for what in ("buy", "status"):
        row(f"`{what}`, one of 1,000 customers with 100 transactions each vs the one customer of a store",
            times[what + " many"], times[what + " one"], 1.2, peaks[what + " many"])
    if serve and token:
        # Both servers run at once, each on one kept-alive connection, and are asked in turn
        # (which first alternating), so a busy moment of the machine falls on both alike.
        servers, urls, samples = {}, {}, {"one": [], "many": []}
        for name, (path, account, number) in cases.items():
            servers[name] = serve(path)
            urls[name] = f"/inApps/v1/transactions/{number * IDS_PER_CUSTOMER + 50}"
        connections = {name: http.client.HTTPConnection("127.0.0.1", port) for name, (_, port) in servers.items()}
        for round in range(2100):
            for name in ("one", "many") if round % 2 else ("many", "one"):
                start = time.perf_counter()
                connections[name].request("GET", urls[name], headers={"Authorization": "Bearer " + token})
                response = connections[name].getresponse()
                response.read()
                if response.status != 200:
                    raise RuntimeError(f"Get Transaction Info {urls[name]}: HTTP {response.status}")
                if round >= 100:  # the first hundred warm up
                    samples[name].append(time.perf_counter() - start)
        for server, _ in servers.values():
            server.terminate()
            server.wait()
        row("Get Transaction Info (`serve`), a transaction of one of 1,000 customers vs of the one customer",
            statistics.median(samples["many"]), statistics.median(samples["one"]), 1.2)

if __name__ == "__main__":
    import base64

    iapsim = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="iapsim-bench-customers-")
    runs = int(os.environ.get("BENCH_RUNS", "15"))
    rows = []

    def environment(state):
        env = dict(os.environ, IAPSIM_STATE_DIR=state,
                   IAPSIM_CATALOG=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "catalog"))
        env.pop("IAPSIM_LOCALE", None)
        return env

    def medians(commands):
        times = {name: [] for name in commands}
        peaks = {name: 0.0 for name in commands}
        for argv, env in commands.values():
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        for _ in range(runs):
            for name, (argv, env) in commands.items():
                start = time.perf_counter()
                proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _, status, usage = os.wait4(proc.pid, 0)
                times[name].append(time.perf_counter() - start)
                peaks[name] = max(peaks[name], usage.ru_maxrss / 1024)
                if os.waitstatus_to_exitcode(status) != 0:
                    sys.exit(f"{' '.join(argv)} failed")
        return {name: statistics.median(values) for name, values in times.items()}, peaks

    def row(name, seconds, reference, target, peak=None):
        rows.append(f"| {name} | {seconds * 1000:.2f} ms | {seconds / reference:.2f}× | ≤ {target}× | "
                    f"{'yes' if seconds / reference <= target else '**no**'} | {'' if peak is None else f'{peak:.1f} MB'} |")

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    token = ".".join([b64(b'{"alg":"ES256","kid":"K","typ":"JWT"}'),
                      b64(json.dumps({"iss": "i", "bid": "com.example.app", "aud": "appstoreconnect-v1",
                                      "exp": int(time.time()) + 3000}).encode()), b64(b"unsigned")])

    def serve(state):
        port_file = state + "/port"
        proc = subprocess.Popen([iapsim, "serve", "--port", "0", "--port-file", port_file], env=environment(state),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
            time.sleep(0.05)
        return proc, int(open(port_file).read())

    measure(iapsim, work, medians, row, environment, serve, token)
    print("| measurement | median | ratio | target | met | peak RSS |\n|---|---|---|---|---|---|")
    print("\n".join(rows))
    subprocess.run(["rm", "-rf", work])
