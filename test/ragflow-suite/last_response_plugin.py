"""
A pytest plugin of agent-canvas's harness (not part of RAGFlow's suite, which is not changed by
it): remembers the last HTTP response each test received through `requests` and, for a test that
fails or errors, appends it as one JSON line to the file named by AGENT_CANVAS_LAST_RESPONSES.
test/ragflow-suite/summary.ts uses it to group a bare `assert 404 == 102` by the request behind it.
"""

import json
import os
import re

import pytest
import requests

_last = {}
_original_send = requests.Session.send


def _send(self, request, **kwargs):
    response = _original_send(self, request, **kwargs)
    try:
        body = "<stream>" if kwargs.get("stream") else response.text[:400]
    except Exception:  # noqa: BLE001 - a body that cannot be read is reported as such
        body = "<unreadable>"
    path = re.sub(r"^https?://[^/]+", "", request.url.split("?")[0])
    _last["value"] = {"method": request.method, "path": path, "status": response.status_code, "body": body}
    return response


requests.Session.send = _send


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _last.pop("value", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    target = os.environ.get("AGENT_CANVAS_LAST_RESPONSES")
    if target and report.failed and "value" in _last:
        with open(target, "a", encoding="utf-8") as f:
            f.write(json.dumps({"nodeid": item.nodeid, "when": call.when, **_last["value"]}) + "\n")
