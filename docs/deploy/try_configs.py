"""Run the deployment guide's proxy configs on loopback: TLS, two nodes, redirects, a rolling restart.

    .venv/bin/python docs/deploy/try_configs.py            # nginx and haproxy
    .venv/bin/python docs/deploy/try_configs.py nginx      # one of them

Needs ``redis-server``, ``openssl`` and the proxies (``apt-get install nginx-light haproxy``).
For each proxy it starts a private Redis, two ``terrace-server`` nodes whose ``--public-url``
is their own path behind the proxy, and the proxy with the guide's config (only ports and
certificate paths rewritten); then, through ``wss://`` with a self-signed certificate: checks
``/healthz``; two players connect to the shared address, one makes a race, the other joins it
(following a ``redirect`` when the proxy sent it to the other node); both start and move; the
node running the race is stopped (SIGTERM) and started again, as in a rolling restart, and the
first player moves on (the other node took the race over). Then two accounts connect from two
client addresses (127.0.0.2 and 127.0.0.3) and one race seats both: the nodes count the address
the proxy forwards, not the proxy's. Prints what it saw; exits 1 on a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from link.session import Session
from tests.server.redis_server import RedisServer, free_port, redis_server_binary

HERE = Path(__file__).parent
SERVER = str(Path(sys.executable).parent / "terrace-server")


def _cert(tmp: Path) -> None:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", tmp / "key.pem", "-out", tmp / "cert.pem"],
        check=True, capture_output=True,
    )  # fmt: skip
    (tmp / "combined.pem").write_bytes((tmp / "cert.pem").read_bytes() + (tmp / "key.pem").read_bytes())
    os.environ["SSL_CERT_FILE"] = str(tmp / "cert.pem")  # the clients trust it


def _config(name: str, tmp: Path, proxy: int, a: int, b: int) -> Path:
    text = (HERE / name).read_text()
    for old, new in (
        ("8801", str(a)),
        ("8802", str(b)),
        ("8443", str(proxy)),
        ("/etc/terrace/tls/", f"{tmp}/"),
    ):
        text = text.replace(old, new)
    text = text.replace(f"listen {proxy} ssl", f"listen 127.0.0.1:{proxy} ssl")
    out = tmp / name
    out.write_text(text)
    return out


def _node(redis_url: str, port: int, proxy: int, path: str, tmp: Path) -> subprocess.Popen[bytes]:
    args = [SERVER, "--port", str(port), "--redis-url", redis_url, "--countdown", "0"]
    args += ["--public-url", f"wss://127.0.0.1:{proxy}/node/{path}/ws", "--trusted-proxies", "127.0.0.1"]
    log = open(tmp / f"node-{path}.log", "ab")  # noqa: SIM115 (the process owns it)
    proc = subprocess.Popen(args, stdout=log, stderr=log)
    _until(lambda: _get(f"http://127.0.0.1:{port}/healthz")[0] == 200, f"node {path}")
    return proc


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2, context=ssl.create_default_context()) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def _until(check: object, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit(f"FAILED: waited {timeout} s for {what}")
        time.sleep(0.1)


async def _play(proxy: int, redis: RedisServer, restart: object) -> None:
    shared = f"wss://127.0.0.1:{proxy}/ws"
    alice, bob = Session(shared, name="alice"), Session(shared, name="bob")
    await alice.connect()
    await bob.connect()
    race = (await alice.request("create", variant="terrace", seats=2, start="full"))["race"]["id"]
    joined = await bob.request("join", race=race)
    print(f"  race {race} made through {shared}; bob joined ({joined['type']}) at {bob.url}")
    started = await alice.push("started", race=race, timeout=10)
    await bob.push("started", race=race, timeout=10)
    moved = await alice.request("move", race=race, seq=1, move=started["legal"][0])
    assert moved["type"] == "moved", moved
    import redis as sync_redis

    with sync_redis.Redis(port=redis.port, decode_responses=True) as r:
        owner = str(r.get(f"terrace:race:{{{race}}}:lease"))
    print(f"  both started; alice moved; the race runs on {owner}")
    await asyncio.to_thread(restart, owner)  # type: ignore[arg-type]
    # the next move finds the race wherever it runs now: resumed there, or a redirect followed
    again = await alice.request("move", race=race, seq=2, move=moved["legal"][0])
    assert again["type"] == "moved", again
    with sync_redis.Redis(port=redis.port, decode_responses=True) as r:
        now = r.get(f"terrace:race:{{{race}}}:lease")
    print(
        f"  rolling restart of that node: alice came back (reconnects {alice.reconnects}), moved seq 2; race now on {now}"
    )
    for s in (alice, bob):
        await s.request("resign", race=race)
        await s.close()


async def _two_addresses(proxy: int) -> None:
    """Two registered players from two addresses through the proxy, seated in one race: with the
    default of one account per address a race, that works only if the node reads X-Forwarded-For."""
    from websockets.asyncio.client import connect

    async def ask(ws: Any, rid: int, **request: object) -> dict[str, Any]:
        await ws.send(json.dumps({**request, "id": rid}))
        while (answer := json.loads(await ws.recv())).get("re") != rid:
            pass  # a push (pushes may come before an answer)
        return answer  # type: ignore[no-any-return]

    url = f"wss://127.0.0.1:{proxy}/node/a/ws"  # one node: no redirect to follow here
    players = []
    for name, source in (("carol", "127.0.0.2"), ("dave", "127.0.0.3")):
        ws = await connect(
            url,
            subprotocols=["terrace.v1.json"],  # type: ignore[list-item]
            origin=f"https://127.0.0.1:{proxy}",  # type: ignore[arg-type]  # as the web pages do
            local_addr=(source, 0),
        )
        answer = await ask(ws, 1, type="register", name=name)
        assert answer["type"] == "registered", answer
        players.append(ws)
    carol, dave = players
    race = (await ask(carol, 2, type="create", variant="terrace", seats=2))["race"]["id"]
    joined = await ask(dave, 2, type="join", race=race)
    assert joined["type"] == "joined", joined
    print(f"  carol (127.0.0.2) made race {race}; dave (127.0.0.3) joined it: two addresses, not the proxy's")
    for ws in players:
        await ws.close()


def _try(proxy_name: str) -> None:
    binary = redis_server_binary()
    assert binary, "redis-server is needed"
    with tempfile.TemporaryDirectory() as d, RedisServer(binary) as redis:
        tmp = Path(d)
        _cert(tmp)
        proxy, a, b = free_port(), free_port(), free_port()
        nodes = {"a": _node(redis.url, a, proxy, "a", tmp), "b": _node(redis.url, b, proxy, "b", tmp)}
        ports = {"a": a, "b": b}
        if proxy_name == "nginx":
            conf = _config("nginx.conf", tmp, proxy, a, b)
            cmd = [
                "nginx",
                "-p",
                str(tmp),
                "-c",
                str(conf),
                "-g",
                f"daemon off; pid {tmp}/nginx.pid; error_log {tmp}/nginx.err;",
            ]
        else:
            conf = _config("haproxy.cfg", tmp, proxy, a, b)
            cmd = ["haproxy", "-f", str(conf)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _until(
                lambda: _get(f"https://127.0.0.1:{proxy}/healthz")[0] == 200,
                f"{proxy_name} /healthz (last: {_get(f'https://127.0.0.1:{proxy}/healthz')})",
            )
            status, body = _get(f"https://127.0.0.1:{proxy}/healthz")
            print(f"{proxy_name}: https://127.0.0.1:{proxy}/healthz -> {status} {json.loads(body)['status']}")

            def restart(owner: str) -> None:
                path = owner.rsplit("/", 2)[-2]
                nodes[path].send_signal(signal.SIGTERM)
                nodes[path].wait(10)
                nodes[path] = _node(redis.url, ports[path], proxy, path, tmp)

            # the web pages and their scripts come through too; the metrics do not
            for page in ("/", "/play", "/top", "/daily", "/arena", "/static/app.js", "/static/style.css"):
                status, _ = _get(f"https://127.0.0.1:{proxy}{page}")
                assert status == 200, f"{proxy_name} {page}: {status}"
            assert _get(f"https://127.0.0.1:{proxy}/metrics")[0] == 404, "the metrics are published"
            print(f"{proxy_name}: the web pages and /static/ through the proxy: 200; /metrics: 404")
            asyncio.run(_play(proxy, redis, restart))
            # a node just restarted is back in the proxy's rotation after its health checks pass
            _until(
                lambda: _get(f"https://127.0.0.1:{proxy}/node/a/ws")[0] not in (0, 502, 503), "node a again"
            )
            asyncio.run(_two_addresses(proxy))
            print(f"{proxy_name}: OK")
        finally:
            proc.terminate()
            proc.wait(10)
            for node in nodes.values():
                node.send_signal(signal.SIGTERM)
                node.wait(10)


if __name__ == "__main__":
    for name in sys.argv[1:] or ["nginx", "haproxy"]:
        _try(name)
