#!/usr/bin/env python3
"""Validates real --json output of the built iapsim against docs/schemas/*.schema.json.

A small validator for the JSON Schema subset the schemas use (type, enum, pattern,
properties, required, additionalProperties, items, anyOf, $ref to the shared
definitions.schema.json, or a generated schema such as transaction.schema.json), so the test needs nothing beyond Python's standard library. It also
checks that the shapes several commands share are defined once: no command's schema holds
a definition of its own, every $ref resolves, and every shared definition is used. Run by
`make test`.
Usage: Tests/e2e/schemas.py [path/to/iapsim]
"""
import atexit, json, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/iapsim")
TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict, "null": type(None)}


SCHEMAS = os.path.join(ROOT, "docs/schemas")
DEFINITIONS = json.load(open(os.path.join(SCHEMAS, "definitions.schema.json")))["definitions"]
# Schemas `make docs` generates from the types that write the JSON, referred to whole.
GENERATED = {name: json.load(open(os.path.join(SCHEMAS, name))) for name in ["transaction.schema.json"]}


def resolve(reference, root):
    """A $ref: "definitions.schema.json#/definitions/NAME", or "#/definitions/NAME" inside it,
    or a generated schema whole."""
    document, _, pointer = reference.partition("#")
    if document in GENERATED and not pointer:
        return GENERATED[document]
    if document not in ("", "definitions.schema.json"):
        raise KeyError(f"a $ref outside definitions.schema.json: {reference}")
    return (DEFINITIONS if document else root["definitions"])[pointer.split("/")[-1]]


def validate(value, schema, root, where="$"):
    if "$ref" in schema:
        return validate(value, resolve(schema["$ref"], root), {"definitions": DEFINITIONS}, where)
    errors = []
    if "anyOf" in schema:
        if all(validate(value, option, root, where) for option in schema["anyOf"]):
            errors.append(f"{where}: matches none of anyOf")
        return errors
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(isinstance(value, TYPES[k]) and not (k in ("integer", "number") and isinstance(value, bool)) for k in kinds)
        if not ok:
            return [f"{where}: {json.dumps(value)[:60]} is not {kinds}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: missing {key}")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                errors += validate(item, properties[key], root, f"{where}.{key}")
            elif extra is False:
                errors.append(f"{where}: unexpected {key}")
            elif isinstance(extra, dict):
                errors += validate(item, extra, root, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors += validate(item, schema["items"], root, f"{where}[{index}]")
    return errors


state = tempfile.mkdtemp(prefix="iapsim-schemas-")
atexit.register(shutil.rmtree, state, ignore_errors=True)
env = dict(os.environ, IAPSIM_STATE_DIR=state, IAPSIM_CATALOG=os.path.join(ROOT, "catalog"))
env.pop("IAPSIM_LOCALE", None)


def output(*arguments):
    result = subprocess.run([BIN, *arguments, "--json"], capture_output=True, env=env, stdin=subprocess.DEVNULL)
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        return {"not JSON (exit %d)" % result.returncode: result.stderr.decode(errors="replace").strip()}


runs = [
    ("clock", ["clock", "freeze"]),
    ("buy", ["buy", "com.example.app.coins100", "--quantity", "2"]),
    ("buy", ["buy", "com.example.app.pro.monthly"]),
    ("buy", ["buy", "com.example.app.book", "--outcome", "ask-to-buy"]),
    ("buy", ["buy", "com.example.app.book", "--outcome", "ask-to-buy"]),  # the same request again
    ("buy", ["buy", "com.example.app.book", "--outcome", "fail=14"]),
    ("buy", ["buy", "com.example.app.book", "--outcome", "cancel"]),
    ("buy", ["buy", "com.example.app.pro.yearly"]),
    ("buy", ["buy", "com.example.app.pro.monthly"]),
    ("list", ["list"]),
    ("list", ["list", "--storefront", "JPN"]),
    ("status", ["status"]),
    ("restore", ["restore"]),
    ("transactions", ["transactions"]),
    ("check", ["check"]),
    ("settings", ["settings"]),
    ("server-error", ["server-error", "4290000", "--count", "2", "--endpoint", "/inApps/v1/*"]),
    ("server-error", ["server-error", "delay", "1.5s"]),
    ("server-error", ["server-error", "21150", "--count", "1"]),
    ("status", ["status"]),
    ("settings", ["settings"]),
    ("server-error", ["server-error"]),
    ("server-error", ["server-error", "clear"]),
    ("lifecycle", ["approve", "3"]),  # before the request's 24 hours are over
    ("clock", ["clock", "advance", "P1M"]),
    ("lifecycle", ["refund", "3", "--reason", "developerIssue"]),
    ("lifecycle", ["renew", "com.example.app.pro.yearly"]),
    ("subscription", ["cancel-subscription", "com.example.app.pro.monthly"]),
    ("subscription", ["expire", "com.example.app.pro.monthly"]),
    ("buy", ["buy", "com.example.app.gems500", "--outcome", "interrupted"]),
    ("lifecycle", ["resolve", "{interrupted}"]),
    ("settings", ["settings", "set", "finish-transactions", "manual"]),
    ("buy", ["buy", "com.example.app.gems500"]),
    ("lifecycle", ["finish", "{transaction}"]),
    ("buy", ["buy", "com.example.app.pro.yearly"]),  # subscribed again, for its price increase
    ("price-increase", ["price-increase", "com.example.app.pro.yearly", "999.99"]),
    ("status", ["status"]),
    ("price-increase", ["price-increase", "consent", "com.example.app.pro.yearly"]),
    ("price-increase", ["price-increase", "com.example.app.pro.yearly", "1999.99", "--notify-only"]),
    ("buy", ["buy", "com.example.app.coins100", "--outside-app"]),
    ("lifecycle", ["request-refund", "{transaction}", "--reason", "UNINTENDED_PURCHASE"]),
    ("status", ["status"]),
    ("lifecycle", ["refund", "{transaction}", "--decline"]),
    ("lifecycle", ["request-refund", "{transaction}"]),
    ("lifecycle", ["refund", "{transaction}"]),
    ("lifecycle", ["refund", "{transaction}", "--reverse"]),
    ("buy", ["buy", "com.example.app.coins100", "--outcome", "ask-to-buy"]),
    ("clock", ["clock", "advance", "P2D"]),  # the request expires unanswered
    ("status", ["status"]),
    ("transactions", ["transactions"]),
    ("transactions", ["transactions", "--jws"]),
    ("status", ["status", "--jws", "--environment", "Production"]),
    ("jws", ["jws", "transaction", "1"]),
    ("jws", ["jws", "renewal", "com.example.app.pro.yearly", "--environment", "Xcode"]),
    ("jws", ["jws", "app-transaction", "--environment", "LocalTesting"]),
    ("certs", ["certs"]),
    ("certs-export", ["certs", "export", os.path.join(state, "exported-certs")]),
    ("notify-test", ["notify-test"]),
    ("trigger", ["trigger", "DID_RENEW"]),
    ("notifications", ["notifications"]),
    ("lifecycle", ["transactions", "delete", "1"]),
    ("reset", ["reset", "--local"]),
    ("reset", ["reset", "--settings"]),
    ("reset", ["reset", "--transactions", "--yes"]),
    ("version", ["--version"]),
    ("help", ["help"]),
    ("help", ["help", "buy"]),
    ("help", ["help", "exit-codes"]),
    ("accounts", ["accounts", "add", "alice", "--storefront", "GBR"]),
    ("buy", ["--account", "alice", "buy", "com.example.app.pro.monthly"]),
    ("accounts", ["accounts", "add", "carol"]),
    ("buy", ["--account", "carol", "redeem-offer-code", "com.example.app.pro.monthly", "pro.winter"]),  # offerID
    ("transactions", ["--account", "carol", "transactions"]),
    ("accounts", ["accounts"]),
    ("accounts", ["accounts", "remove", "alice", "--yes"]),
    ("reset", ["reset", "--yes"]),
    ("reset", ["reset", "--all", "--yes"]),
]
passed = failed = 0
# One definition per shape: none copied into a command's schema; every $ref resolves; none unused.
used = set()
for file in sorted(os.listdir(SCHEMAS)):
    text = open(os.path.join(SCHEMAS, file)).read()
    document = json.loads(text)
    if file != "definitions.schema.json" and "definitions" in document:
        failed += 1
        print(f"FAIL: {file} defines {sorted(document['definitions'])} itself; they belong in definitions.schema.json")
    for reference in re.findall(r'"\$ref": "([^"]+)"', text):
        try:
            resolve(reference, {"definitions": DEFINITIONS} if file == "definitions.schema.json" else {})
            used.add(reference.split("/")[-1])
        except KeyError:
            failed += 1
            print(f"FAIL: {file}: {reference} does not resolve")
unused = sorted(set(DEFINITIONS) - used)
if unused:
    failed += 1
    print(f"FAIL: definitions.schema.json defines {unused}, which no schema uses")
else:
    passed += 1
ids = {}  # identifiers later runs name: the last interrupted purchase, the last transaction
for name, arguments in runs:
    schema = json.load(open(os.path.join(ROOT, "docs/schemas", f"{name}.schema.json")))
    arguments = [argument.format(**ids) for argument in arguments]
    document = output(*arguments)
    for key in ("interrupted", "transaction"):
        if isinstance(document.get(key), dict) and "id" in document[key]:
            ids[key] = str(document[key]["id"])
    problems = validate(document, schema, schema)
    if problems:
        failed += 1
        print(f"FAIL: iapsim {' '.join(arguments)} --json vs {name}.schema.json:\n  " + "\n  ".join(problems[:5]))
    else:
        passed += 1
# notifications show needs a UUID from the run above.
uuid = output("notify-test")["testNotificationToken"]
schema = json.load(open(os.path.join(ROOT, "docs/schemas/notifications-show.schema.json")))
problems = validate(output("notifications", "show", uuid), schema, schema)
if problems:
    failed += 1
    print("FAIL: iapsim notifications show --json vs notifications-show.schema.json:\n  " + "\n  ".join(problems[:5]))
else:
    passed += 1
# The validator itself must be able to fail.
schema = json.load(open(os.path.join(ROOT, "docs/schemas/restore.schema.json")))
if validate({"restored": "x"}, schema, schema):
    passed += 1
else:
    failed += 1
    print("FAIL: the validator accepted a wrong document")
print(f"schemas: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
