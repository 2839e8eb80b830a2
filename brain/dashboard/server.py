"""The dashboard's web server: one page, one WebSocket, a JSON API, on the daemon's own event loop.

Served with aiohttp (the ``dashboard`` extra), imported only when the dashboard is on. Routes:

- ``GET /`` the page, ``GET /static/NAME`` its script and style (package data, no CDN);
- ``GET /ws`` the WebSocket: a ``hello`` message with the history, then ``update`` messages at
  most :data:`UPDATES_PER_S` a second, and ``reload`` messages (see the README for the fields);
- ``GET /api/state`` a snapshot for scripts, ``GET /api/at?t=T`` the state at a past moment;
- ``POST /api/act`` an intervention (:mod:`brain.dashboard.control`).

Security: with a token configured, every request (page, assets, API, WebSocket) must carry it,
as ``Authorization: Bearer TOKEN``, ``?token=TOKEN`` (the page's first load; it then sets an
HttpOnly, SameSite=Strict cookie) or that cookie; anything else gets 403. Without a token the
server listens on the loopback only (the daemon refuses otherwise) and answers only requests whose
Host is that address (no DNS rebinding). A POST must be JSON and a WebSocket or POST with an
Origin must come from the page's own origin, so another web site open in the same browser
cannot act through it.

Each page gets its own send queue; a page that cannot keep up (a full queue) is closed and
reconnects with a fresh hello, so a slow phone never holds back the others or the loop.
"""

from __future__ import annotations

import asyncio
import hmac
import importlib.resources
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from .control import ControlError, Controls
from .monitor import Monitor

__all__ = ["UPDATES_PER_S", "DashboardServer"]

log = logging.getLogger(__name__)

#: The most updates a page gets per second.
UPDATES_PER_S = 10.0
#: Messages waiting for one page before it counts as too slow and is closed.
QUEUE_LIMIT = 50
COOKIE = "cozmo_brain_token"
STATIC = {"index.html": "text/html", "app.js": "text/javascript", "common.js": "text/javascript",
          "draw.js": "text/javascript", "style.css": "text/css"}
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws: wss:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _static_files() -> dict[str, bytes]:
    folder = importlib.resources.files("brain.dashboard") / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


class DashboardServer:
    """Serves one monitor and its controls at ``host:port`` (see the module notes)."""

    def __init__(self, host: str, port: int, *, monitor: Monitor, controls: Controls, token: str | None) -> None:
        self.host = host
        self.port = port
        self.monitor = monitor
        self.controls = controls
        self.token = token
        self.clients: dict[web.WebSocketResponse, asyncio.Queue[str | None]] = {}
        self.sent = 0
        self._files = _static_files()
        self._runner: web.AppRunner | None = None
        self._publisher: asyncio.Task[None] | None = None
        self._local_hosts: set[str] = set()

    # ------------------------------------------------------------------ life

    async def start(self) -> str:
        """Listen; returns the page's address (``http://HOST:PORT/``). OSError when the address is taken."""
        app = web.Application(middlewares=[self._guard], client_max_size=64 * 1024)
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/at", self._at)
        app.router.add_post("/api/act", self._act)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            self._runner = None
            raise
        bound = self._runner.addresses[0]
        self.port = int(bound[1])
        host = f"[{self.host}]" if ":" in self.host else self.host
        self._local_hosts = {f"{h}:{self.port}" for h in ("127.0.0.1", "localhost", "[::1]", host)}
        self._publisher = asyncio.get_running_loop().create_task(self._publish(), name="dashboard-publisher")
        return f"http://{host}:{self.port}/"

    async def close(self) -> None:
        """Close every page and stop listening."""
        if self._publisher is not None:
            self._publisher.cancel()
            try:
                await self._publisher
            except asyncio.CancelledError:
                pass
            self._publisher = None
        for ws in list(self.clients):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def push(self, message: dict[str, Any]) -> None:
        """Send ``message`` to every page now (a reload's result)."""
        self._broadcast(json.dumps(message, separators=(",", ":")))

    def rehello(self) -> None:
        """Send every page a fresh hello (the brain started: now there is a tree to show)."""
        for ws, queue in list(self.clients.items()):
            self._enqueue(ws, queue, self._hello())

    # ------------------------------------------------------------------ guard

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self.token is not None:
            given = _token_of(request)
            if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
                log.warning("dashboard: refused %s %s from %s: %s token", request.method, request.path,
                            request.remote, "wrong" if given else "no")
                return web.Response(status=403, text="403: this dashboard needs its token "
                                                     "(open the address with ?token=...)\n")
        elif request.host not in self._local_hosts:
            return web.Response(status=403, text=f"403: unexpected Host {request.host!r}\n")
        origin = request.headers.get("Origin")
        acts = request.method != "GET" or request.path == "/ws"
        if acts and origin is not None and origin != f"{request.scheme}://{request.host}":
            return web.Response(status=403, text="403: requests from another origin are refused\n")
        response = await handler(request)
        if not isinstance(response, web.WebSocketResponse):
            response.headers.update(HEADERS)
        if self.token is not None and request.query.get("token") and request.path == "/":
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        return response

    # ------------------------------------------------------------------ routes

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(body=self._files["index.html"], content_type=STATIC["index.html"], charset="utf-8")

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self._files or name == "index.html":
            raise web.HTTPNotFound()
        return web.Response(body=self._files[name], content_type=STATIC[name], charset="utf-8")

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self.monitor.state())

    async def _at(self, request: web.Request) -> web.Response:
        try:
            t = float(request.query["t"])
            have = int(request.query["have"]) if "have" in request.query else None
        except (KeyError, ValueError):
            return web.json_response({"error": "t: expected the time (s, the daemon's clock); have: a version"},
                                     status=400)
        return web.json_response(self.monitor.at(t, have))

    async def _act(self, request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            return web.json_response({"error": "expected Content-Type: application/json"}, status=415)
        try:
            body = await request.json()
        except ValueError as exc:
            return web.json_response({"error": f"not valid JSON: {exc}"}, status=400)
        try:
            answer = await self.controls.act(body, str(request.remote))
        except ControlError as exc:
            return web.json_response({"ok": False, "error": str(exc)}, status=exc.status)
        return web.json_response(answer)

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30.0, compress=False, max_msg_size=64 * 1024)
        await ws.prepare(request)
        queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=QUEUE_LIMIT)
        self.clients[ws] = queue
        log.info("dashboard: page connected from %s (%d open)", request.remote, len(self.clients))
        self._enqueue(ws, queue, self._hello())
        sender = asyncio.get_running_loop().create_task(self._send(ws, queue), name="dashboard-page")
        try:
            async for msg in ws:  # pages send nothing the server needs; read to see the close
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.clients.pop(ws, None)
            sender.cancel()
            try:
                await sender
            except asyncio.CancelledError:
                pass
            log.info("dashboard: page from %s left (%d open)", request.remote, len(self.clients))
        return ws

    # ------------------------------------------------------------------ publishing

    def _hello(self) -> str:
        return json.dumps(self.monitor.hello(control=self.controls.describe()), separators=(",", ":"))

    def _enqueue(self, ws: web.WebSocketResponse, queue: asyncio.Queue[str | None], text: str) -> None:
        try:
            queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dashboard: a page does not keep up; closing it (it reconnects afresh)")
            self.clients.pop(ws, None)
            queue.get_nowait()
            queue.put_nowait(None)

    def _broadcast(self, text: str) -> None:
        for ws, queue in list(self.clients.items()):
            self._enqueue(ws, queue, text)

    async def _send(self, ws: web.WebSocketResponse, queue: asyncio.Queue[str | None]) -> None:
        while True:
            text = await queue.get()
            if text is None:
                await ws.close()
                return
            try:
                await ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
            self.sent += 1

    async def _publish(self) -> None:
        """At most :data:`UPDATES_PER_S` a second, what changed, to every page (nothing when none is open)."""
        period = 1.0 / UPDATES_PER_S
        while True:
            await asyncio.sleep(period)  # from the end of the last update: never more than the rate
            if not self.clients:
                continue
            try:
                self._broadcast(json.dumps(self.monitor.update(), separators=(",", ":")))
            except Exception:  # one bad update must not end the dashboard; say what it was
                log.exception("dashboard: update failed")


def _token_of(request: web.Request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[len("Bearer "):].strip()
    return request.query.get("token") or request.cookies.get(COOKIE)
