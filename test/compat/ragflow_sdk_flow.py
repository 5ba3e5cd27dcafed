"""
Drives agent-canvas with the ragflow-sdk package (PyPI), as a RAGFlow user's script would:
agents, sessions, ask (non-stream, stream), a UserFillUp form answered through ask(inputs=...),
datasets, upload, parse, chunks add/update/delete, document download, update, and retrieve.

Run by test/compat/ragflowSdk.test.ts:  python ragflow_sdk_flow.py <base_url> <api_key> <canvases.json>
Prints one line per step: STEP {"step": ..., "ok": bool, "detail": ...}; a step whose
prerequisite failed reports that. Exit code 0 whatever the steps gave (the test asserts them).
"""

import json
import sys
import time
import traceback
import uuid

import ragflow_sdk
from ragflow_sdk import RAGFlow

BASE_URL, API_KEY, CANVASES = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
rag = RAGFlow(api_key=API_KEY, base_url=BASE_URL)
state = {}
failed = set()
RUN = uuid.uuid4().hex[:8]
DOC_TEXT = (
    "Durable execution keeps a workflow's progress in an event history.\n"
    "The quokka is a small marsupial that lives on Rottnest Island.\n"
    "Temporal replays the history to rebuild the workflow state after a crash.\n"
).encode()


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
            tb = traceback.format_exc(limit=4)
            report(name, False, f"{type(e).__name__}: {e}\n{tb}")
        return fn

    return wrap


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def text_of(messages):
    return "".join(m.content or "" for m in messages)


report("sdk_version", True, getattr(ragflow_sdk, "__version__", "unknown"))


# ---- agents and sessions ------------------------------------------------------------------


@step("agent_create")
def _():
    agent = rag.create_agent(title=f"sdk echo {RUN}", dsl=CANVASES["llm"], description="ragflow-sdk e2e")
    check(agent is None, f"create_agent returns None in the SDK, got {agent!r}")
    found = [a for a in rag.list_agents(page_size=100) if a.title == f"sdk echo {RUN}"]
    check(len(found) == 1, f"list_agents finds the new agent once, found {len(found)}")
    state["agent"] = found[0]
    return found[0].id


@step("agent_get_update", needs=["agent_create"])
def _():
    agent = rag.get_agent(state["agent"].id)
    check(agent.id == state["agent"].id, "get_agent returns the agent")
    check("components" in (agent.dsl if isinstance(agent.dsl, dict) else agent.dsl.to_json()), "the agent's dsl has components")
    rag.update_agent(state["agent"].id, title=f"sdk echo {RUN} renamed", description="renamed")
    renamed = rag.get_agent(state["agent"].id)
    check(renamed.title == f"sdk echo {RUN} renamed", f"update_agent renames, title is {renamed.title!r}")
    return renamed.title


@step("session_create_list", needs=["agent_create"])
def _():
    agent = state["agent"]
    session = agent.create_session()
    check(session.id, "create_session returns a session with an id")
    state["session"] = session
    listed = agent.list_sessions(id=session.id)
    check([s.id for s in listed] == [session.id], f"list_sessions(id=) finds it: {[s.id for s in listed]}")
    return session.id


@step("ask_non_stream", needs=["session_create_list"])
def _():
    answers = list(state["session"].ask("what is a quokka", stream=False))
    check(len(answers) == 1, f"non-stream ask yields one message, got {len(answers)}")
    check("SCRIPTED: what is a quokka" in answers[0].content, f"the answer is the model's: {answers[0].content!r}")
    return answers[0].content


@step("ask_stream", needs=["session_create_list"])
def _():
    messages = list(state["session"].ask("and a wombat", stream=True))
    check(len(messages) >= 2, f"stream ask yields the answer in pieces, got {len(messages)}")
    text = text_of(messages)
    check("SCRIPTED: and a wombat" in text, f"streamed text is the model's answer: {text!r}")
    return f"{len(messages)} messages: {text!r}"


@step("session_history", needs=["ask_non_stream", "ask_stream"])
def _():
    [session] = state["agent"].list_sessions(id=state["session"].id)
    # RAGFlow lists an agent session's turns under "message" (the SDK keeps the key as it is).
    turns = getattr(session, "message", None) or []
    questions = [m.get("content", "") for m in turns if m.get("role") == "user"]
    check(questions[-2:] == ["what is a quokka", "and a wombat"], f"the session keeps both questions: {questions}")
    answers = [m.get("content", "") for m in turns if m.get("role") == "assistant"]
    check(any("SCRIPTED: and a wombat" in a for a in answers), f"and the answers: {answers}")
    return f"{len(turns)} turns"


@step("userfillup_resume")
def _():
    rag.create_agent(title=f"sdk form {RUN}", dsl=CANVASES["form"])
    [agent] = [a for a in rag.list_agents(page_size=100) if a.title == f"sdk form {RUN}"]
    state["form_agent"] = agent
    session = agent.create_session()
    first = list(session.ask("start", stream=True))
    # The form (a user_inputs event) is not a message event, which the SDK's ask() hides.
    check("You asked for" not in text_of(first), f"the run waits at the form: {text_of(first)!r}")
    resumed = list(session.ask("", stream=True, inputs={"count": {"type": "integer", "value": 3}}))
    text = text_of(resumed)
    check(text == "You asked for 3.", f"the answered form resumes the run: {text!r}")
    return text


@step("session_delete", needs=["session_create_list"])
def _():
    agent = state["agent"]
    extra = agent.create_session()
    agent.delete_sessions(ids=[extra.id])
    check(agent.list_sessions(id=extra.id) == [], "the deleted session is gone")
    return extra.id


# ---- datasets, documents, chunks, retrieval -----------------------------------------------


@step("dataset_create_list_update")
def _():
    ds = rag.create_dataset(name=f"sdk dataset {RUN}", chunk_method="naive")
    check(ds.id and ds.name == f"sdk dataset {RUN}", f"create_dataset returns it: {ds.name!r}")
    state["dataset"] = ds
    check([d.id for d in rag.list_datasets(name=f"sdk dataset {RUN}")] == [ds.id], "list_datasets(name=) finds it")
    ds.update({"description": "updated by the sdk"})
    check(rag.get_dataset(name=f"sdk dataset {RUN}").description == "updated by the sdk", "update changes the description")
    return ds.id


@step("document_upload", needs=["dataset_create_list_update"])
def _():
    ds = state["dataset"]
    docs = ds.upload_documents([{"display_name": "quokka.txt", "blob": DOC_TEXT}])
    check(len(docs) == 1 and docs[0].name == "quokka.txt", f"upload returns the document: {[d.name for d in docs]}")
    state["doc"] = docs[0]
    listed = ds.list_documents(id=docs[0].id)
    check(len(listed) == 1 and listed[0].size == len(DOC_TEXT), f"list_documents finds it with its size: {[(d.name, d.size) for d in listed]}")
    return docs[0].id


@step("document_parse", needs=["document_upload"])
def _():
    ds, doc = state["dataset"], state["doc"]
    ds.async_parse_documents([doc.id])
    until = time.time() + 60
    while True:
        [current] = ds.list_documents(id=doc.id)
        if current.run == "DONE" or time.time() > until:
            break
        time.sleep(0.5)
    check(current.run == "DONE", f"the document is parsed: run={current.run!r} progress={current.progress!r}")
    check(current.chunk_count >= 1, f"parsing made chunks: chunk_count={current.chunk_count}")
    state["doc"] = current
    return f"{current.chunk_count} chunks"


@step("chunks_list", needs=["document_parse"])
def _():
    chunks = state["doc"].list_chunks()
    check(len(chunks) >= 1, "list_chunks returns the parsed chunks")
    check(any("quokka" in c.content for c in chunks), f"a chunk holds the text: {[c.content[:40] for c in chunks]}")
    return f"{len(chunks)} chunks"


@step("chunk_add", needs=["document_parse"])
def _():
    doc = state["doc"]
    chunk = doc.add_chunk(content="Numbats eat termites with a long sticky tongue.", important_keywords=["numbat"])
    check(chunk.id and chunk.content.startswith("Numbats"), f"add_chunk returns the chunk: {chunk.content!r}")
    state["chunk"] = chunk
    check(any(c.id == chunk.id for c in doc.list_chunks(page_size=100)), "the added chunk is listed")
    return chunk.id


@step("chunk_update", needs=["chunk_add"])
def _():
    chunk, doc = state["chunk"], state["doc"]
    chunk.update({"content": "Numbats eat up to 20,000 termites a day.", "important_keywords": ["numbat", "termite"]})
    [again] = [c for c in doc.list_chunks(page_size=100) if c.id == chunk.id]
    check(again.content == "Numbats eat up to 20,000 termites a day.", f"the chunk's content changed: {again.content!r}")
    return again.content


@step("retrieve", needs=["document_parse"])
def _():
    chunks = rag.retrieve(dataset_ids=[state["dataset"].id], question="Which marsupial lives on Rottnest Island?")
    check(len(chunks) >= 1, "retrieve finds chunks")
    check(any("quokka" in c.content for c in chunks), f"the best chunks mention the quokka: {[c.content[:40] for c in chunks]}")
    check(all(c.document_id == state["doc"].id for c in chunks), "every chunk names its document")
    return f"{len(chunks)} chunks"


@step("chunk_delete", needs=["chunk_add"])
def _():
    chunk, doc = state["chunk"], state["doc"]
    doc.delete_chunks([chunk.id])
    check(all(c.id != chunk.id for c in doc.list_chunks(page_size=100)), "the deleted chunk is no longer listed")
    return chunk.id


@step("document_download", needs=["document_upload"])
def _():
    content = state["doc"].download()
    check(content == DOC_TEXT, f"download returns the uploaded bytes: {content[:60]!r}")
    return f"{len(content)} bytes"


@step("document_update", needs=["document_upload"])
def _():
    ds, doc = state["dataset"], state["doc"]
    doc.update({"name": "quokka-notes.txt"})
    [again] = ds.list_documents(id=doc.id)
    check(again.name == "quokka-notes.txt", f"the document is renamed: {again.name!r}")
    return again.name


@step("cleanup", needs=["dataset_create_list_update"])
def _():
    ds = state["dataset"]
    if "doc" in state:
        ds.delete_documents(ids=[state["doc"].id])
        check(ds.list_documents() == [], "the dataset has no documents left")
    rag.delete_datasets(ids=[ds.id])
    check(all(d.id != ds.id for d in rag.list_datasets(page_size=100)), "the dataset is deleted")
    for key in ("agent", "form_agent"):
        if key in state:
            rag.delete_agent(state[key].id)
    left = [a.id for a in rag.list_agents(page_size=100) if a.id in {state[k].id for k in ("agent", "form_agent") if k in state}]
    check(left == [], f"the agents are deleted: {left}")
    return "ok"
