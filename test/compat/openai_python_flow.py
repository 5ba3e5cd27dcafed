"""
Drives agent-canvas's OpenAI-compatible routes with the OpenAI Python SDK (PyPI): a canvas is a
model. Non-stream and stream chat completions, models.list() and models.retrieve(), and the
SDK's typed errors for a bad key (AuthenticationError, 401) and an unknown model
(NotFoundError, 404), on /v1 and on RAGFlow's /api/v1/agents_openai/{agent_id} route.

Run by test/compat/openaiPython.test.ts:  python openai_python_flow.py <base_url> <api_key> <agent_id>
Prints one line per step: STEP {"step": ..., "ok": bool, "detail": ...}.
"""

import json
import sys
import traceback

import openai
from openai import OpenAI

BASE, KEY, AGENT = sys.argv[1], sys.argv[2], sys.argv[3]
client = OpenAI(api_key=KEY, base_url=f"{BASE}/v1", max_retries=0)


def report(name, ok, detail=""):
    print("STEP " + json.dumps({"step": name, "ok": ok, "detail": detail}), flush=True)


def step(name):
    def wrap(fn):
        try:
            report(name, True, fn() or "")
        except Exception as e:  # noqa: BLE001 - every failure is reported with its cause
            report(name, False, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}")
        return fn

    return wrap


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    return None


report("sdk_version", True, openai.__version__)


@step("non_stream")
def _():
    reply = client.chat.completions.create(model=AGENT, messages=[{"role": "user", "content": "hello there"}])
    check(reply.object == "chat.completion", f"object is chat.completion: {reply.object!r}")
    check(reply.model == AGENT, f"model is the canvas id: {reply.model!r}")
    check(reply.choices[0].message.content == "hello there", f"the canvas answers: {reply.choices[0].message.content!r}")
    check(reply.choices[0].finish_reason == "stop", f"finish_reason stop: {reply.choices[0].finish_reason!r}")
    return reply.choices[0].message.content


@step("stream")
def _():
    text, finish, count = "", None, 0
    for chunk in client.chat.completions.create(model=AGENT, messages=[{"role": "user", "content": "streamed hello"}], stream=True):
        check(chunk.object == "chat.completion.chunk", f"object is chat.completion.chunk: {chunk.object!r}")
        count += 1
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
            finish = chunk.choices[0].finish_reason or finish
    check(text == "streamed hello", f"the chunks join to the answer: {text!r}")
    check(finish == "stop", f"the stream ends with finish_reason stop: {finish!r}")
    return f"{count} chunks"


@step("models_list")
def _():
    models = client.models.list()
    ids = [m.id for m in models]
    check(AGENT in ids, f"the canvas is listed as a model: {ids}")
    [mine] = [m for m in models if m.id == AGENT]
    check(mine.object == "model", f"object is model: {mine.object!r}")
    check(client.models.retrieve(AGENT).id == AGENT, "models.retrieve(canvas id) returns it")
    return f"{len(ids)} models"


@step("bad_key")
def _():
    bad = OpenAI(api_key="not-a-key", base_url=f"{BASE}/v1", max_retries=0)
    err = raised(lambda: bad.chat.completions.create(model=AGENT, messages=[{"role": "user", "content": "hi"}]))
    check(isinstance(err, openai.AuthenticationError), f"AuthenticationError, got {type(err).__name__}: {err}")
    check(err.status_code == 401, f"status 401: {err.status_code}")
    check(isinstance(err.body, dict) and err.body.get("message"), f"OpenAI's error body with a message: {err.body!r}")
    err = raised(lambda: bad.models.list())
    check(isinstance(err, openai.AuthenticationError), f"models.list() with a bad key: AuthenticationError, got {type(err).__name__}")
    return err.body.get("message")


@step("unknown_model")
def _():
    err = raised(lambda: client.chat.completions.create(model="no-such-canvas", messages=[{"role": "user", "content": "hi"}]))
    check(isinstance(err, openai.NotFoundError), f"NotFoundError, got {type(err).__name__}: {err}")
    check(err.status_code == 404, f"status 404: {err.status_code}")
    check("no-such-canvas" in str(err), f"the message names the model: {err}")
    err = raised(lambda: list(client.chat.completions.create(model="no-such-canvas", messages=[{"role": "user", "content": "hi"}], stream=True)))
    check(isinstance(err, openai.NotFoundError), f"stream=True: NotFoundError too, got {type(err).__name__}")
    return str(err)


@step("agents_openai_route")
def _():
    ragflow = OpenAI(api_key=KEY, base_url=f"{BASE}/api/v1/agents_openai/{AGENT}", max_retries=0)
    reply = ragflow.chat.completions.create(model="model", messages=[{"role": "user", "content": "via agents_openai"}])
    check(reply.choices[0].message.content == "via agents_openai", f"the canvas answers: {reply.choices[0].message.content!r}")
    text = "".join(
        c.choices[0].delta.content or ""
        for c in ragflow.chat.completions.create(model="model", messages=[{"role": "user", "content": "streamed via agents_openai"}], stream=True)
        if c.choices
    )
    check(text == "streamed via agents_openai", f"the stream joins to the answer: {text!r}")
    return text
