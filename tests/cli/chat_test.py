#!/usr/bin/env python3
"""`bioagent ask` and `bioagent chat` are one assistant: the seed's four
questions (Chinese and English, the fourth the order to run) get the same answers from both, and the chat,
driven through a pseudo-terminal, plans the example genome, shows the
parameter dialog with its countdown (confirmed by Enter in Chinese, left to
time out in English), follows the run to its outcome, and a run started by
`ask` can be followed from the chat with /follow. Runs do the check and
identify stages only (--stages) to stay fast.

Usage: chat_test.py BIOAGENT_BINARY"""
import codecs
import difflib
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="bioagent-chat-")
STATE = os.path.join(WORK, "state")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("BIOAGENT_LLM")}
ENV["BIOAGENT_HOME"] = os.path.join(WORK, "home")
ENV.pop("BIOAGENT_BUNDLE", None)
COMMON = ["--state-dir", STATE, "--stages", "check,identify", "--cpus", "1", "--confirm-timeout", "8"]
QUESTIONS = {
    "zh": ["总结下SPL基因家族", "荔枝的SPL基因家族是否有发表过相关的文章",
           "如果我想开展 Exam 的 GLOBIN 基因家族研究，可以吗？", "执行分析"],
    "en": ["Summarise the SPL gene family", "Has anything been published on the SPL gene family of lychee?",
           "I want to study the GLOBIN gene family of Exam. Is it feasible?", "Run the analysis"],
}
FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)
        if detail:
            print("  | " + detail[:1500].replace("\n", "\n  | "), flush=True)


def normalise(text):
    """The answer without ids, the progress that follows it and terminal noise."""
    text = text.replace("\r", "")
    text = re.sub(r"\b[a-z]+_[0-9a-f]{32}\b", "ID", text)
    kept = []
    for line in text.split("\n"):
        if line.startswith(("· ", "Parameters:", "参数确认")):
            break
        kept.append(line.rstrip())
    return "\n".join(kept).strip()


def diff(a_name, a, b_name, b):
    """The lines where two answers differ (what a failure must show)."""
    return "\n".join(difflib.unified_diff(a.split("\n"), b.split("\n"), a_name, b_name, n=1, lineterm=""))


def ask(question, session=None):
    cmd = [BIN, "--offline", "ask", *COMMON, question] + (["--session", session] if session else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    m = re.search(r"session (s_[0-9a-f]{32})", p.stderr)
    return p.returncode, p.stdout, m.group(1) if m else None, p.stderr


class Chat:
    """`bioagent chat` on a pseudo-terminal: what a person at a terminal sees."""

    def __init__(self, *extra):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(BIN, [BIN, "--offline", "chat", *COMMON, *extra], ENV)
        self.buf = ""
        # One decoder for the whole stream: a read may end inside a character.
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.wait_for(r"\n> $|^> $")

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            self.buf += self.decoder.decode(os.read(self.fd, 65536))
        except OSError:
            return False
        return True

    def wait_for(self, pattern, timeout=300):
        deadline = time.time() + timeout
        while time.time() < deadline:
            text = self.buf.replace("\r", "")
            m = re.search(pattern, text)
            if m:
                return text
            self.read(0.5)
        raise TimeoutError("waited for %r; the terminal shows:\n%s" % (pattern, self.buf[-3000:]))

    def say(self, line, until=r"\n> $", timeout=300):
        self.buf = ""
        os.write(self.fd, (line + "\n").encode())
        out = self.wait_for(until, timeout)
        # The echoed input line comes first; the reply follows it.
        out = out.split("\n", 1)[1] if "\n" in out else ""
        return out[: out.rfind("> ")] if out.endswith("> ") else out

    def close(self):
        os.write(self.fd, b"/quit\n")
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


try:
    # 1. ask: the first three questions of each language, each language in one session.
    asked, sessions = {}, {}
    for lang, qs in QUESTIONS.items():
        for q in qs[:3]:
            rc, out, sid, err = ask(q, sessions.get(lang))
            sessions.setdefault(lang, sid)
            asked[q] = out
            check(rc == 0 and sid, "ask %s: %s" % (lang, q), err)
    check("SBP" in asked["总结下SPL基因家族"] and "miR156" in asked["总结下SPL基因家族"],
          "ask answers the seed's first question from the knowledge base", asked["总结下SPL基因家族"])
    check("gap in the literature" not in asked["Has anything been published on the SPL gene family of lychee?"],
          "offline, no gap in the literature is claimed")

    # 2. the chat: the same questions give the same answers.
    chats = {lang: Chat() for lang in QUESTIONS}
    for lang, qs in QUESTIONS.items():
        for q in qs[:3]:
            said = chats[lang].say(q)
            check(normalise(said) == normalise(asked[q]), "chat %s answers as ask does: %s" % (lang, q),
                  diff("ask", normalise(asked[q]), "chat", normalise(said)))

    # 3. the order to run: Chinese confirmed at the dialog by Enter, English left to its countdown.
    zh = chats["zh"]
    zh.buf = ""
    os.write(zh.fd, (QUESTIONS["zh"][3] + "\n").encode())
    shown = zh.wait_for(r"参数确认[\s\S]*\(\d+ s\)")
    check("cpu" in shown and "evalue" in shown, "zh: the parameter dialog shows the parameters", shown[-800:])
    os.write(zh.fd, b"\n")
    ran = zh.wait_for(r"任务 (done|failed|cancelled)[^\n]*\n[\s\S]*> $", 300)
    check("参数已确认" in ran and "任务 done" in ran, "zh: confirmed by Enter, the run finished", ran[-1500:])
    check(re.search(r"identify: (done|warn)", ran) is not None, "zh: progress shows the identify stage", ran[-1500:])
    chat_zh_reply = normalise(ran.split("\n", 1)[1] if "\n" in ran else ran)

    en = chats["en"]
    ran_en = en.say(QUESTIONS["en"][3], until=r"task (done|failed|cancelled)[^\n]*\n[\s\S]*> $", timeout=300)
    check("(1 s)" in ran_en.replace("\r", "") and "default parameters" in ran_en and "task done" in ran_en,
          "en: the countdown ran out and the defaults ran", ran_en[-1500:])
    chat_en_reply = normalise(ran_en)

    # 4. ask gives the order in its session: the same reply, the run followed to its end (zh and en).
    rc, out_en, _, err = ask(QUESTIONS["en"][3], sessions["en"])
    check(rc == 0 and "task done" in out_en, "ask en: the order runs the plan to its end", out_en[-800:] + err[-400:])
    check(normalise(out_en) == chat_en_reply and chat_en_reply, "ask and chat reply alike to the order (en)",
          diff("ask", normalise(out_en), "chat", chat_en_reply))
    rc, out, _, err = ask(QUESTIONS["zh"][3], sessions["zh"])
    check(rc == 0 and "任务 done" in out, "ask zh: the order runs the plan to its end", out[-800:] + err[-400:])
    check(normalise(out) == chat_zh_reply and chat_zh_reply, "ask and chat reply alike to the order (zh)",
          diff("ask", normalise(out), "chat", chat_zh_reply))
    task = re.search(r"\bt_[0-9a-f]{32}\b", out)

    # 5. a run of one surface followed from the other: the chat opens ask's session and follows its task.
    for c in chats.values():
        check(c.close() == 0, "chat ends with /quit")
    if task:
        follower = Chat("--session", sessions["zh"])
        seen = follower.say("/follow " + task.group(0), until=r"(任务|task) done[^\n]*\n[\s\S]*> $", timeout=60)
        check("identify" in seen, "the chat follows a task ask started", seen[-800:])
        follower.close()
    else:
        check(False, "ask's reply names its task", out[-800:])
finally:
    shutil.rmtree(WORK, ignore_errors=True)

print("%d failed" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
