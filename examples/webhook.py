#!/usr/bin/env python3
"""A webhook for App Store Server Notifications V2, the smallest that works: it answers
200 to each POST and prints the notification's type, subtype and UUID, decoded from the
signedPayload (not verified: a real backend verifies it first, see docs/BACKEND.md).

Usage: python3 examples/webhook.py [--port-file FILE]   (the OS picks the port; 127.0.0.1 only)
"""
import base64
import http.server
import json
import sys


class Webhook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            payload = json.loads(body)["signedPayload"].split(".")[1]
            decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            kind = decoded["notificationType"] + ("/" + decoded["subtype"] if decoded.get("subtype") else "")
            print(f"webhook: {kind} {decoded['notificationUUID']}", flush=True)
            self.send_response(200)
        except (KeyError, IndexError, ValueError):
            self.send_response(400)
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Webhook)
if "--port-file" in sys.argv:
    with open(sys.argv[sys.argv.index("--port-file") + 1], "w") as file:
        file.write(f"{server.server_port}\n")
print(f"webhook: listening on http://127.0.0.1:{server.server_port}/", flush=True)
server.serve_forever()
