"""The dashboard's data and interventions, end to end: the daemon as a subprocess, an HTTP and
WebSocket client in the test (aiohttp's), the simulator in the daemon (``run --sim``) or in the
test (``run --robot``, through the daemon harness), and the access rules from other addresses.
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, run
from .dashboard_support import ADDRESS, Served, served

aiohttp = pytest.importorskip("aiohttp")

pytestmark = pytest.mark.e2e

TOKEN = "a-token-for-the-tests-4711"


async def _messages(ws: Any, seconds: float) -> list[dict[str, Any]]:
    out = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        try:
            msg = await ws.receive(timeout=max(0.01, end - loop.time()))
        except asyncio.TimeoutError:
            break
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        out.append(json.loads(msg.data))
    return out


async def _until(ws: Any, found: Any, seconds: float, what: str) -> list[dict[str, Any]]:
    """Updates until ``found(update)`` is true; fails naming ``what``."""
    seen = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        msg = await ws.receive(timeout=max(0.01, end - loop.time()))
        data = json.loads(msg.data)
        seen.append(data)
        if found(data):
            return seen
    raise AssertionError(f"no update with {what} within {seconds} s")


def _personality(tmp_path: Path) -> Path:
    for name in ("default.yaml", "common.yaml"):
        shutil.copy(REPO / "trees" / name, tmp_path / name)
    return tmp_path / "default.yaml"


def test_state_updates_and_interventions_against_run_sim(tmp_path: Path) -> None:
    personality = _personality(tmp_path)
    settings = tmp_path / "settings.yaml"  # vision settings of its own: the page's "camera on" keeps them
    settings.write_text("vision:\n  color: true\n  face_interval_s: 2\n  motion: false\n")
    with served("--sim", "--duration", "60", "--personality", str(personality), "--dashboard", "127.0.0.1:0",
                "--config", str(settings), cwd=tmp_path) as daemon:

        async def main() -> None:
            async with aiohttp.ClientSession() as http:
                async with http.get(daemon.url + "api/state") as r:
                    assert r.status == 200
                    state = await r.json()
                nodes = state["tree"]["nodes"]
                assert len(state["statuses"]) == len(nodes) and state["robot"]["connected"]
                assert state["branch"].startswith("freeplay > ") and state["personality"] == "default"
                assert {n["name"] for n in nodes if n["kind"] == "reaction"} >= {"RobotPickedUp", "CliffDetected"}
                # the brain's typed state: awake since the start, nothing in the world model yet
                assert state["arousal"]["state"] == "awake" and state["arousal"]["why"] == "started"
                # the needs, from the project's needs_config.json: full at the start
                brackets = {k: v["bracket"] for k, v in state["needs"].items()}
                assert brackets == dict.fromkeys(["Repair", "Energy", "Play"], "Full")
                world = state["world"]
                assert (world["faces"], world["motion"], world["glimpse"], world["edges"]) == ([], None, None, [])
                # the simulator's cubes connect as they advertise: connected, never tapped
                assert all(c["connected"] and c["last_tapped"] is None for c in world["cubes"]), world["cubes"]

                async with http.ws_connect(daemon.url + "ws") as ws:
                    hello = json.loads((await ws.receive(timeout=5)).data)
                    assert hello["type"] == "hello" and hello["control"]["allowed"] and hello["control"]["sim"]
                    assert "pick_up" in [b["step"]["event"] for b in hello["control"]["sim_buttons"]]
                    assert hello["tree"]["nodes"] == nodes
                    started = time.monotonic()
                    updates = await _messages(ws, 3.0)
                    elapsed = time.monotonic() - started
                    assert all(u["type"] == "update" for u in updates)
                    assert 0.5 * elapsed * 10 <= len(updates) <= elapsed * 10 + 1  # at most ten a second
                    assert any("face" in u for u in updates)  # the face the robot shows, as it changes
                    beats = [u["beat"] for u in updates]
                    assert beats == sorted(beats) and beats[-1] > beats[0]

                    answer = await http.post(daemon.url + "api/act", json={"action": "sim", "event": "pick_up"})
                    assert answer.status == 200, await answer.text()
                    seen = await _until(ws, lambda u: any(d["title"] == "reaction RobotPickedUp"
                                                          for d in u["decisions"]), 5, "the pick-up reaction")
                    decision = next(d for u in seen for d in u["decisions"] if d["kind"] == "reaction")
                    # held level in the air (the robot's attitude), as Cozmo's engine fired it
                    assert "the robot reported orientation orientation=in_air" in decision["lines"][0]
                    assert any(s["lane"] == "reaction" and s["label"] == "RobotPickedUp" for u in seen
                               for s in u["spans"])
                    assert any(e["cat"] == "control" and "world event pick_up" in e["text"] for u in seen
                               for e in u["events"])
                    await http.post(daemon.url + "api/act", json={"action": "sim", "event": "put_down"})

                    answer = await http.post(daemon.url + "api/act",
                                             json={"action": "emotion", "emotion": "Happy", "value": 0.9})
                    assert (answer.status, (await answer.json())["message"]) == (200, "Happy set to 0.90")
                    seen = await _until(ws, lambda u: u["mood"].get("Happy", 0) > 0.85, 3, "Happy at 0.9")

                    # the camera is on from the start (run's default); switched off and on from the page,
                    # JPEG frames of the simulated room come
                    answer = await http.post(daemon.url + "api/act", json={"action": "camera", "on": True})
                    assert (answer.status, (await answer.json())["message"]) == (200, "the camera is on already")
                    answer = await http.post(daemon.url + "api/act", json={"action": "camera", "on": False})
                    assert (answer.status, (await answer.json())["message"]) == (200, "camera off")
                    answer = await http.post(daemon.url + "api/act", json={"action": "camera", "on": True})
                    assert (answer.status, (await answer.json())["message"]) == (200, "camera on")
                    # as the settings say, and with the face detector it had (its log line may come
                    # a moment after the answer)
                    deadline = time.monotonic() + 10.0
                    while (len(started := [line for line in daemon.lines if "vision on: " in line]) < 2
                           and time.monotonic() < deadline):
                        await asyncio.sleep(0.05)
                    assert len(started) == 2 and all("colour camera, faces every 2 s" in line for line in started)
                    assert "motion off" in started[1] and "(the face detector kept)" in started[1], started
                    seen = await _until(ws, lambda u: bool(u.get("camera")), 10, "a camera frame")
                    frame = seen[-1]["camera"]
                    assert base64.b64decode(frame["jpeg"])[:2] == b"\xff\xd8"
                    assert (frame["width"], frame["height"]) == (320, 240) and seen[-1]["robot"]["camera"]
                    answer = await http.post(daemon.url + "api/act", json={"action": "camera", "on": False})
                    assert (await answer.json())["message"] == "camera off"

                    answer = await http.post(daemon.url + "api/act", json={"action": "behavior", "name": "Pouncee"})
                    assert answer.status == 400
                    assert "unknown behaviour 'Pouncee'; did you mean 'Pounce'" in (await answer.json())["error"]
                    answer = await http.post(daemon.url + "api/act", json={"action": "clip", "name": "nope"})
                    assert answer.status == 400 and "no clip or animation trigger 'nope'" in await answer.text()
                    answer = await http.post(daemon.url + "api/act", json={"action": "sim", "event": "cliff",
                                                                         "for": "long"})
                    assert answer.status == 400 and "'for' must be a number" in await answer.text()

                    # a broken personality: the reload answers with file and line, the running one stays
                    text = personality.read_text()
                    personality.write_text(text.replace("type: selector\n  name: freeplay",
                                                        "type: selectorr\n  name: freeplay"))
                    line = text.splitlines().index("  type: selector") + 1
                    answer = await http.post(daemon.url + "api/act", json={"action": "reload"})
                    body = await answer.json()
                    assert answer.status == 200 and body["ok"] is False
                    assert f"default.yaml:{line}: root.type: unknown node type 'selectorr'" in body["error"]
                    await _until(ws, lambda u: u.get("type") == "reload" and not u["ok"], 5, "the reload message")
                    personality.write_text(text)
                    answer = await http.post(daemon.url + "api/act", json={"action": "reload"})
                    assert (await answer.json())["ok"] is True

                async with http.get(daemon.url + "api/at", params={"t": str(state["t"])}) as r:
                    past = await r.json()
                assert past["statuses"] == state["statuses"] and past["tree_version"] == state["tree_version"]
                assert past["behavior"] == state["branch"]

        run(main(), timeout=90)
        assert "dashboard: world event pick_up from 127.0.0.1: simulator: pick_up" in daemon.text


STILL = """name: still
root:
  type: sequence
  children: [{type: set_head_angle, params: {degrees: 10}}, {type: wait, params: {seconds: 600}}]
"""


def test_the_camera_panel_shows_the_faces_the_vision_tracks(tmp_path: Path) -> None:
    """A robot that keeps still, its camera on (run's default), a person in front of it."""
    (tmp_path / "still.yaml").write_text(STILL)
    with served("--sim", "--duration", "60", "--personality", "still.yaml", "--dashboard", "127.0.0.1:0",
                cwd=tmp_path) as daemon:

        async def main() -> tuple[dict[str, Any], dict[str, Any]]:
            async with aiohttp.ClientSession() as http, http.ws_connect(daemon.url + "ws") as ws:
                await http.post(daemon.url + "api/act", json={"action": "sim", "event": "face", "face": "alice",
                                                             "bearing_deg": 8, "distance_m": 0.5, "height_m": 0.15})
                seen = await _until(ws, lambda u: bool(u.get("camera") and u["camera"]["faces"]), 15, "a face")
                for _ in range(50):  # the brain's world model has it once a beat took in the face_seen
                    async with http.get(daemon.url + "api/state") as r:
                        world = (await r.json())["world"]
                    if world["faces"]:
                        break
                    await asyncio.sleep(0.1)
                return dict(seen[-1]["camera"]), world

        camera, world = run(main(), timeout=60)
        # the world model places her where she stands: 8° left, half a metre away (the size's slack)
        [known] = world["faces"]
        assert known["in_view"] and abs(known["bearing_deg"] - 8) < 5 and 350 < known["distance_mm"] < 700, known
        [face] = camera["faces"]
        x, y, w, h = face["box"]
        # the photograph stands 8° to the left of where the head points: its middle is 289 px (the focal
        # length) × tan 8° = 41 px left of the picture's centre (155 px), within the detector's slack
        assert abs(x + w / 2 - (155 - 41)) < 25 and 0 <= y and y + h <= 240 and 40 <= w <= 140


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def test_another_address_needs_the_token_for_everything(tmp_path: Path) -> None:
    cfg = _config(tmp_path, f"dashboard:\n  address: 127.0.0.2:0\n  token: {TOKEN}\n")
    with served("--sim", "--no-vision", "--duration", "60", "--config", str(cfg), cwd=tmp_path) as daemon:
        assert daemon.url.startswith("http://127.0.0.2:")

        async def main() -> None:
            from_local = aiohttp.TCPConnector(local_addr=("127.0.0.1", 0))  # the request comes from 127.0.0.1
            jar = aiohttp.CookieJar(unsafe=True)  # keep cookies of an IP address, as browsers do
            async with aiohttp.ClientSession(connector=from_local, cookie_jar=jar) as http:
                for path in ("", "static/app.js", "api/state", "api/at?t=1"):
                    async with http.get(daemon.url + path) as r:
                        assert r.status == 403, path
                    async with http.get(daemon.url + path, headers={"Authorization": "Bearer wrong-" + TOKEN}) as r:
                        assert r.status == 403, path
                    async with http.get(daemon.url + path, params={"token": TOKEN[:-1]}) as r:
                        assert r.status == 403, path
                async with http.post(daemon.url + "api/act", json={"action": "reload"}) as r:
                    assert r.status == 403
                for headers in ({}, {"Authorization": "Bearer nope-nope-nope-nope"}):
                    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                        await http.ws_connect(daemon.url + "ws", headers=headers)
                    assert refused.value.status == 403
                # with the token: the page (which sets the cookie), then the rest by cookie alone
                async with http.get(daemon.url, params={"token": TOKEN}) as r:
                    assert r.status == 200 and "cozmo-brain" in await r.text()
                async with http.get(daemon.url + "api/state") as r:
                    assert r.status == 200
                async with http.ws_connect(daemon.url + "ws") as ws:
                    assert json.loads((await ws.receive(timeout=5)).data)["type"] == "hello"
            async with aiohttp.ClientSession() as http:
                headers = {"Authorization": f"Bearer {TOKEN}"}
                async with http.get(daemon.url + "api/state", headers=headers) as r:
                    assert r.status == 200 and (await r.json())["robot"]["connected"]

        run(main(), timeout=60)
        assert "dashboard: refused GET /api/state from 127.0.0.1: no token" in daemon.text
        assert "dashboard: refused GET /api/state from 127.0.0.1: wrong token" in daemon.text
        assert TOKEN not in daemon.text


def test_without_a_token_only_the_loopback_own_page_is_served(tmp_path: Path) -> None:
    with served("--sim", "--no-vision", "--duration", "60", "--dashboard", "127.0.0.1:0", cwd=tmp_path) as daemon:

        async def main() -> None:
            async with aiohttp.ClientSession() as http:
                # another name for this address (DNS rebinding): refused
                async with http.get(daemon.url + "api/state", headers={"Host": "robot.example.com"}) as r:
                    assert r.status == 403
                # another web site in the same browser: cannot act, cannot listen
                evil = {"Origin": "http://evil.example.com"}
                async with http.post(daemon.url + "api/act", json={"action": "reload"}, headers=evil) as r:
                    assert r.status == 403
                with pytest.raises(aiohttp.WSServerHandshakeError):
                    await http.ws_connect(daemon.url + "ws", headers=evil)
                async with http.post(daemon.url + "api/act", data="{\"action\": \"reload\"}",
                                     headers={"Content-Type": "text/plain"}) as r:
                    assert r.status == 415  # a form or text post (no CORS preflight) does nothing
                async with http.post(daemon.url + "api/act", json={"action": "sim", "event": "poke"},
                                     headers={"Origin": daemon.url.rstrip("/")}) as r:
                    assert r.status == 200  # the page itself

        run(main(), timeout=60)


def test_interventions_are_refused_against_a_robot_without_allow_control(tmp_path: Path) -> None:
    from .daemon_harness import start

    async def main() -> None:
        daemon = await start(tmp_path, "--dashboard", "127.0.0.1:0")
        try:
            url = next(ADDRESS.search(line).group(1) for _, line in daemon.log if ADDRESS.search(line))
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(url + "ws") as ws:
                    hello = json.loads((await ws.receive(timeout=5)).data)
                    assert hello["control"]["allowed"] is False and hello["control"]["sim"] is False
                    assert "dashboard.allow_control" in hello["control"]["refusal"]
                for body in ({"action": "emotion", "emotion": "Happy", "value": 1.0}, {"action": "reload"},
                             {"action": "behavior", "name": "Pounce"}, {"action": "sim", "event": "pick_up"},
                             {"action": "clip", "name": "anim_bored_sigh_01"}, {"action": "camera", "on": False}):
                    async with http.post(url + "api/act", json=body) as r:
                        assert r.status == 403, body
                        assert "refused against a real robot" in (await r.json())["error"]
                async with http.get(url + "api/state") as r:
                    state = await r.json()
                assert abs(state["mood"]["Happy"] - 1.0) > 0.05  # nothing was done
                assert [e for e in state["events"] if e["cat"] == "control" and "refused emotion Happy" in e["text"]]
            await daemon.line("dashboard: refused emotion Happy = 1.0 from 127.0.0.1")
        finally:
            await daemon.close()

    run(main(), timeout=60)


def test_allow_control_lets_it_act_on_a_robot(tmp_path: Path) -> None:
    from .daemon_harness import start

    cfg = _config(tmp_path, "dashboard:\n  address: 127.0.0.1:0\n  allow_control: true\n")

    async def main() -> None:
        daemon = await start(tmp_path, "--config", str(cfg))
        try:
            url = next(ADDRESS.search(line).group(1) for _, line in daemon.log if ADDRESS.search(line))
            async with aiohttp.ClientSession() as http:
                async with http.post(url + "api/act", json={"action": "clip", "name": "anim_bored_sigh_01"}) as r:
                    assert r.status == 200, await r.text()
                    assert (await r.json())["message"] == "clip anim_bored_sigh_01 started"
                async with http.post(url + "api/act", json={"action": "sim", "event": "poke"}) as r:
                    assert r.status == 409 and "run --sim" in (await r.json())["error"]
            # the clip reaches the robot: its frames start at the simulator
            await daemon.line(r"dashboard: clip anim_bored_sigh_01 from 127.0.0.1: clip anim_bored_sigh_01 started")
            await daemon.message("StartAnimation", timeout=5)
        finally:
            await daemon.close()

    run(main(), timeout=60)


def test_served_before_the_robot_answers(tmp_path: Path) -> None:
    """The page is up while the daemon waits for a robot that is switched off, and says so."""
    daemon = Served("--robot", "127.0.0.1:9", "--dashboard", "127.0.0.1:0", cwd=tmp_path)
    try:
        url = daemon.wait_line(ADDRESS.pattern).group(1)

        async def main() -> dict[str, Any]:
            async with aiohttp.ClientSession() as http, http.get(url + "api/state") as r:
                return dict(await r.json())

        state = run(main(), timeout=30)
        assert state["status"] == "waiting for the robot" and state["tree"] is None
    finally:
        daemon.close()
