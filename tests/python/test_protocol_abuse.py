"""What a hostile or broken client can send, through raw sockets signed by jupyter_client's
Session: replays, malformed parts under a valid signature, wrong shapes, unknown types, huge
messages. A message is either answered (an error reply for a malformed request, with busy and
idle on iopub) or dropped; whether it was answered is told by order, not by waiting: each
channel serves its requests in order, so the next reply on the socket belongs to the next
request answered. After every abuse the kernel still answers kernel_info and an execute."""

import sqlite3

import pytest
import zmq
from jupyter_client.session import Session

from test_protocol import TIMEOUT, iopub_until_idle, kernel, run  # noqa: F401 (kernel: a fixture)

PARTS = ("header", "parent_header", "metadata", "content")


class Raw:
    """A DEALER socket on one of the kernel's channels, signing with the kernel's key."""

    def __init__(self, km, channel):
        self.session = Session(key=km.session.key)
        self.sock = zmq.Context.instance().socket(zmq.DEALER)
        self.sock.connect(f"{km.transport}://{km.ip}:{getattr(km, channel + '_port')}")

    def frames(self, msg_type, content, raw=None):
        """(msg_id, signed frames) of a message; `raw` maps part names to bytes put in their place."""
        msg = self.session.msg(msg_type, content)
        raw = raw or {}
        parts = [raw[name] if name in raw else self.session.pack(msg[name]) for name in PARTS]
        return msg["header"]["msg_id"], [b"<IDS|MSG>", self.session.sign(parts), *parts]

    def request(self, msg_type, content, raw=None):
        msg_id, frames = self.frames(msg_type, content, raw)
        self.sock.send_multipart(frames)
        return msg_id

    def recv(self):
        assert self.sock.poll(TIMEOUT * 1000), "no reply"
        _, frames = self.session.feed_identities(self.sock.recv_multipart())
        return self.session.deserialize(frames)

    def replies_until(self, msg_id):
        """The replies received up to and including the one to `msg_id`."""
        replies = [self.recv()]
        while replies[-1]["parent_header"]["msg_id"] != msg_id:
            replies.append(self.recv())
        return replies

    def assert_dropped(self):
        """The message just sent got no reply: the next reply is to a fresh kernel_info."""
        probe = self.request("kernel_info_request", {})
        replies = self.replies_until(probe)
        assert [r["msg_type"] for r in replies] == ["kernel_info_reply"], replies

    def close(self):
        self.sock.close(0)


@pytest.fixture()
def raw(kernel):  # noqa: F811
    """Raw sockets on shell and control; afterwards the kernel must still serve normally."""
    km, kc = kernel
    sockets = {name: Raw(km, name) for name in ("shell", "control")}
    yield km, kc, sockets
    for s in sockets.values():
        s.close()
    kc.kernel_info()
    assert kc.get_shell_msg(timeout=TIMEOUT)["msg_type"] == "kernel_info_reply"
    reply, msgs = run(kc, "6 * 7")
    assert reply["status"] == "ok", reply
    assert [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"] == ["42"]


def assert_refused(kc, sock, msg_id, *evalue_parts, ename="BadRequest"):
    """The request got an error reply naming what was wrong, between busy and idle."""
    [reply] = sock.replies_until(msg_id)
    content = reply["content"]
    assert (content["status"], content["ename"]) == ("error", ename), content
    for part in evalue_parts:
        assert part in content["evalue"], content
    statuses = [m["content"].get("execution_state") for m in iopub_until_idle(kc, msg_id)]
    assert statuses == ["busy", "idle"]
    return content


def test_a_replayed_request_runs_once(raw):
    _, kc, s = raw
    shell = s["shell"]
    msg_id, frames = shell.frames("execute_request", {"code": "replayed = 1", "silent": False})
    shell.sock.send_multipart(frames)
    shell.sock.send_multipart(frames)
    probe = shell.request("kernel_info_request", {})
    replies = shell.replies_until(probe)
    assert [r["parent_header"]["msg_id"] for r in replies] == [msg_id, probe]
    # Executed once: the next execution is the second.
    reply, _ = run(kc, "replayed")
    assert reply["execution_count"] == 2


def test_a_replay_on_control_or_across_channels_is_dropped(raw):
    _, _, s = raw
    control, shell = s["control"], s["shell"]
    msg_id, frames = control.frames("kernel_info_request", {})
    control.sock.send_multipart(frames)
    assert control.recv()["parent_header"]["msg_id"] == msg_id
    control.sock.send_multipart(frames)
    control.assert_dropped()
    # Answered on shell, then replayed on control.
    msg_id, frames = shell.frames("kernel_info_request", {})
    shell.sock.send_multipart(frames)
    assert shell.recv()["parent_header"]["msg_id"] == msg_id
    control.sock.send_multipart(frames)
    control.assert_dropped()


@pytest.mark.parametrize("channel", ["shell", "control"])
@pytest.mark.parametrize(
    "part,name", [("parent_header", "parent header"), ("metadata", "metadata"), ("content", "content")]
)
def test_bad_json_in_a_signed_part_is_refused(raw, channel, part, name):
    _, kc, s = raw
    msg_id = s[channel].request("kernel_info_request", {}, raw={part: b'{"oops": '})
    assert_refused(kc, s[channel], msg_id, f"invalid JSON in the {name}")


@pytest.mark.parametrize("header", [b'{"msg_id": ', b"\xff\xfe", b"[]", b'"header"'])
def test_an_unreadable_header_is_dropped(raw, header):
    _, _, s = raw
    s["shell"].request("execute_request", {"code": "1"}, raw={"header": header})
    s["shell"].assert_dropped()


def test_invalid_utf8_is_refused(raw):
    _, kc, s = raw
    msg_id = s["shell"].request("execute_request", {}, raw={"content": b'{"code": "\xff"}'})
    content = assert_refused(kc, s["shell"], msg_id, "content is not valid UTF-8")
    assert content["execution_count"] == 0


@pytest.mark.parametrize("missing", ["msg_id", "msg_type"])
def test_a_header_without_id_or_type_is_dropped(raw, missing):
    _, _, s = raw
    shell = s["shell"]
    msg = shell.session.msg("execute_request", {"code": "1"})
    del msg["header"][missing]
    shell.request("execute_request", {}, raw={"header": shell.session.pack(msg["header"])})
    shell.assert_dropped()


@pytest.mark.parametrize("content,kind", [(b'["%who"]', "array"), (b'"%who"', "string"), (b"7", "number")])
def test_content_that_is_not_an_object_is_refused(raw, content, kind):
    _, kc, s = raw
    msg_id = s["shell"].request("execute_request", {}, raw={"content": content})
    assert_refused(kc, s["shell"], msg_id, f"content is a JSON {kind}, not an object")


@pytest.mark.parametrize("content,found", [({}, "nothing"), ({"code": 7}, "number"), ({"code": None}, "null")])
def test_code_that_is_not_a_string_is_refused_not_run(raw, content, found):
    _, kc, s = raw
    msg_id = s["shell"].request("execute_request", content)
    assert_refused(kc, s["shell"], msg_id, '"code"', found)
    reply, _ = run(kc, "%who")
    assert reply["execution_count"] == 1


@pytest.mark.parametrize("channel", ["shell", "control"])
def test_an_unknown_request_gets_an_error(raw, channel):
    _, kc, s = raw
    msg_id = s[channel].request("frobnicate_request", {})
    assert_refused(kc, s[channel], msg_id, "frobnicate_request", ename="UnknownRequest")


def test_huge_messages(raw):
    _, kc, s = raw
    shell = s["shell"]
    # 8 MB of comment, then an expression: served like any cell.
    reply, msgs = run(kc, "# " + "x" * (8 << 20) + "\n6 * 7")
    assert reply["status"] == "ok"
    assert [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"] == ["42"]
    # 32 MB under a forged signature, and as many frames as one likes: dropped.
    shell.sock.send_multipart([b"<IDS|MSG>", b"0" * 64, b"{" * (32 << 20), b"{}", b"{}", b"{}"])
    shell.assert_dropped()
    shell.sock.send_multipart([b"x"] * 10_000)
    shell.assert_dropped()


def test_history_search_is_sqlite_glob(raw):
    """The kernel's history search agrees with SQLite's GLOB, which IPython's runs."""
    _, kc, _ = raw
    cells = ["6 * 7", "6*7", "x = [1, 2]", "X = 3", "print('a?')", "s = 'é'", "6 * 7"]
    for code in cells:
        run(kc, code)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE history (line INTEGER, source TEXT)")
    db.executemany("INSERT INTO history VALUES (?, ?)", enumerate(cells, 1))
    patterns = ["6 *", "6*", "6*?", "6 ?", "*[", "[xX]*", "[^6]*", "[a-z] = *", "*'?'*", "*[]]", "*", "", "?"]
    for pattern in patterns:
        expected = [[1, line, src] for line, src in db.execute("SELECT * FROM history WHERE source GLOB ?", (pattern,))]
        kc.history(hist_access_type="search", pattern=pattern, output=False, raw=True)
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        assert reply["content"]["history"] == expected, pattern
