"""`serve` as the HTTPS proxy for Apple's hosts (the CONNECT tunnel) beside plain HTTP, with
one client, side by side: the mean TLS handshake (CONNECT, then TLS 1.3 to the answer's end)
and Get Transaction Info requests per second on one keep-alive connection each way.
Used by bench.py; `measure(iapsim, state)` returns (handshake_s, tunnel_rps, plain_rps)."""
import atexit
import http.client
import os
import shutil
import ssl
import subprocess
import tempfile
import time


def measure(iapsim, state, env, token, requests=400, handshakes=20):
    work = tempfile.mkdtemp(prefix="iapsim-tunnel-bench-")
    atexit.register(shutil.rmtree, work, True)
    port_file = os.path.join(work, "port")
    subprocess.run([iapsim, "certs", "export", work + "/trusted"], env=env, check=True, stdout=subprocess.DEVNULL)
    server = subprocess.Popen([iapsim, "--quiet", "serve", "--port", "0", "--port-file", port_file], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not (os.path.exists(port_file) and open(port_file).read().strip()):
            time.sleep(0.05)
        port = int(open(port_file).read())
        context = ssl.create_default_context(cafile=work + "/trusted/tls-root.pem")
        host = "api.storekit-sandbox.itunes.apple.com"
        headers = {"Authorization": "Bearer " + token}

        def tunnel():
            connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
            connection.set_tunnel(host, 443)
            return connection

        def rate(connection):
            connection.request("GET", "/inApps/v1/transactions/1", headers=headers)
            connection.getresponse().read()  # warm: the first answer signs
            start = time.perf_counter()
            for _ in range(requests):
                connection.request("GET", "/inApps/v1/transactions/1", headers=headers)
                answer = connection.getresponse()
                answer.read()
                if answer.status != 200:
                    raise RuntimeError(f"tunnel bench: HTTP {answer.status}")
            return requests / (time.perf_counter() - start)

        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        plain_rps = rate(plain)
        tunnel_rps = rate(tunnel())
        total = 0.0
        for _ in range(handshakes):
            connection = tunnel()
            start = time.perf_counter()
            connection.connect()
            total += time.perf_counter() - start
            connection.close()
        return total / handshakes, tunnel_rps, plain_rps
    finally:
        server.terminate()
        server.wait()
