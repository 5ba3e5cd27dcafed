"""
Drives agent-canvas's memory with the ragflow-sdk package (PyPI), unmodified, as a RAGFlow
user's script would: create, list, update, get_config and delete a memory; add, search, recent,
content, status update and forget a message, and a memory's message list.

Run by test/compat/ragflowSdkMemory.test.ts:  python ragflow_sdk_memory_flow.py <base_url> <api_key>
Prints one line per step: STEP {"step": ..., "ok": bool, "detail": ...}; a step whose
prerequisite failed reports that. Exit code 0 whatever the steps gave (the test asserts them).
"""

import json
import sys
import time
import traceback
import uuid

from ragflow_sdk import RAGFlow
from ragflow_sdk.modules.memory import Memory

BASE_URL, API_KEY = sys.argv[1], sys.argv[2]
rag = RAGFlow(api_key=API_KEY, base_url=BASE_URL)
state = {}
failed = set()
NAME = "sdk memory " + uuid.uuid4().hex[:8]
EMBD = "BAAI/bge-small-en-v1.5@Builtin"


def report(name, ok, detail=""):
    print("STEP " + json.dumps({"step": name, "ok": ok, "detail": detail}), flush=True)


def step(name, needs=()):
    def wrap(fn):
        missing = [n for n in needs if n in failed]
        if missing:
            failed.add(name)
            report(name, False, f"not run: prerequisite step(s) failed: {', '.join(missing)}")
            return fn
        try:
            detail = fn()
            report(name, True, detail or "")
        except Exception as e:  # noqa: BLE001 - every failure is reported with its cause
            failed.add(name)
            report(name, False, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}")
        return fn

    return wrap


def check(cond, what):
    if not cond:
        raise AssertionError(what)


@step("memory_create")
def _():
    mem = rag.create_memory(NAME, ["raw", "semantic"], EMBD, "glm-4@ZHIPU-AI")
    check(isinstance(mem, Memory) and mem.id, f"no memory: {mem}")
    check(sorted(mem.memory_type) == ["raw", "semantic"], f"memory_type {mem.memory_type}")
    check(mem.forgetting_policy == "FIFO" and mem.memory_size == 5 * 1024 * 1024, f"defaults {mem.forgetting_policy} {mem.memory_size}")
    state["memory"] = mem
    return mem.id


@step("memory_list", needs=["memory_create"])
def _():
    res = rag.list_memory(keywords=NAME, page=1, page_size=10)
    ids = [m.id for m in res["memory_list"]]
    check(res["total_count"] == 1 and ids == [state["memory"].id], f"list {res}")
    return f"{res['total_count']} listed"


@step("memory_update", needs=["memory_create"])
def _():
    mem = state["memory"]
    mem.update({"name": NAME + " renamed", "temperature": 0.3, "description": "from the SDK"})
    check(mem.name == NAME + " renamed", f"name {mem.name}")
    mem.get_config()
    check(mem.temperature == 0.3 and mem.description == "from the SDK", f"config {mem.temperature} {mem.description}")
    return mem.name


@step("message_add", needs=["memory_create"])
def _():
    msg = rag.add_message([state["memory"].id], "agent-sdk", "session-sdk", "Which moon has geysers?", "Enceladus has water geysers.", user_id="user-1")
    check(msg == "All add to task.", f"message {msg!r}")
    return msg


@step("memory_messages", needs=["message_add"])
def _():
    mem = state["memory"]
    deadline = time.time() + 60
    while True:
        data = mem.list_memory_messages()
        rows = data["messages"]["message_list"]
        if rows and rows[0]["extract"] or time.time() > deadline:
            break
        time.sleep(0.5)
    check(len(rows) == 1 and rows[0]["message_type"] == "raw", f"rows {rows}")
    check([e["message_type"] for e in rows[0]["extract"]] == ["semantic"], f"extract {rows[0]['extract']}")
    state["raw_id"] = rows[0]["message_id"]
    return f"raw {state['raw_id']}, extracted {rows[0]['extract'][0]['content']!r}"


@step("message_search", needs=["memory_messages"])
def _():
    found = rag.search_message("moon geysers Enceladus", [state["memory"].id], top_n=5)
    types = sorted(m["message_type"] for m in found)
    check(types == ["raw", "semantic"], f"found {found}")
    return ", ".join(types)


@step("message_recent", needs=["memory_messages"])
def _():
    recent = rag.get_recent_messages([state["memory"].id], session_id="session-sdk", limit=5)
    check(len(recent) == 2 and all(m["session_id"] == "session-sdk" for m in recent), f"recent {recent}")
    return f"{len(recent)} recent"


@step("message_content", needs=["memory_messages"])
def _():
    content = state["memory"].get_message_content(state["raw_id"])
    check(content["content"] == "User Input: Which moon has geysers?\nAgent Response: Enceladus has water geysers.", f"content {content}")
    check(content["user_id"] == "user-1" and len(content["content_embed"]) > 0, f"fields {content.keys()}")
    return content["id"]


@step("message_update", needs=["memory_messages"])
def _():
    check(state["memory"].update_message_status(state["raw_id"], False) is True, "status update")
    found = rag.search_message("moon geysers Enceladus", [state["memory"].id])
    check([m["message_type"] for m in found] == ["semantic"], f"a disabled message is still found: {found}")
    return "disabled"


@step("message_forget", needs=["memory_messages"])
def _():
    check(state["memory"].forget_message(state["raw_id"]) is True, "forget")
    recent = rag.get_recent_messages([state["memory"].id])
    check(state["raw_id"] not in [m["message_id"] for m in recent], f"forgotten message still recent: {recent}")
    return "forgotten"


@step("memory_delete", needs=["memory_create"])
def _():
    rag.delete_memory(state["memory"].id)
    check(rag.list_memory(keywords=NAME)["total_count"] == 0, "still listed")
    try:
        state["memory"].get_config()
    except Exception as e:  # noqa: BLE001 - the SDK raises the server's message
        check("not found" in str(e), f"message {e}")
        return str(e)
    raise AssertionError("a deleted memory still has a config")
