#!/usr/bin/python3
"""What a tool may build and how long parsing may take, through the running
server: tables whose output would amplify their input (a CSV or xlsx whose
short rows the widest row multiplies, a million and more cells, more text than
the budget) are refused before they are built with a JSON error naming the
limit; an xlsx with two entries of one name is refused; fetch_text_from_urls on
1 MB of 200,000 nested <div>, on a PDF whose page tree holds 300,000 pages, on
the same PDF with a broken cross-reference table (MuPDF repairs it) and on one
that claims 300,000,000 pages answers within the URL's deadline with a bounded
text that says where it stopped. The server answers after each. Loopback only.

Usage: limits_test.py BIOAGENT_BIN"""
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_raw import http  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN = sys.argv[1]
WORK = os.path.realpath(tempfile.mkdtemp(prefix="bioagent-limits-"))
FAILURES = []
JSON = {"Content-Type": "application/json"}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def post(port, path, obj, sid=None, timeout=90):
    hdr = dict(JSON)
    if sid:
        hdr["X-Session-Id"] = sid
    return http(port, "POST", path, json.dumps(obj).encode(), hdr, timeout=timeout)


def upload(port, sid, name, data):
    boundary = uuid.uuid4().hex
    body = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n" % (boundary, name)).encode() + data
    body += ("\r\n--%s--\r\n" % boundary).encode()
    return http(port, "POST", "/api/upload", body,
                {"Content-Type": "multipart/form-data; boundary=" + boundary, "X-Session-Id": sid}, timeout=120)


def xlsx(rows_xml, duplicate_sheet=None, shared=None):
    """A minimal workbook of one sheet whose <sheetData> is `rows_xml` (and shared strings `shared`)."""
    parts = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
        'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
        '2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
        'spreadsheetml/2006/main"><sheetData>%s</sheetData></worksheet>' % rows_xml,
    }
    if shared is not None:
        parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
            "</Types>", '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
        parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
            "</Relationships>", '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            'relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
        parts["xl/sharedStrings.xml"] = ('<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/'
                                         'spreadsheetml/2006/main">%s</sst>'
                                         % "".join("<si><t>%s</t></si>" % x for x in shared))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            z.writestr(name, text)
        if duplicate_sheet is not None:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                z.writestr("xl/worksheets/sheet1.xml", parts["xl/worksheets/sheet1.xml"].replace(rows_xml,
                                                                                               duplicate_sheet))
    return buf.getvalue()


def pdf_of_pages(pages, count=None, broken_xref=False):
    """A PDF whose one page tree node lists `pages` kids (all one page object), /Count `count`."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []

    def obj(body):
        offsets.append(len(out))
        out.extend(b"%d 0 obj\n" % len(offsets) + body + b"\nendobj\n")
    obj(b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(b"<< /Type /Pages /Count %d /Kids [" % (count or pages) + b"3 0 R " * pages + b"] >>")
    obj(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>")
    content = b"BT /F1 12 Tf 10 50 Td (page) Tj ET"
    obj(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    xref = len(out)
    out.extend(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
    for o in offsets:
        out.extend(b"%010d 00000 n \n" % (o + (7 if broken_xref else 0)))
    out.extend(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
               % (len(offsets) + 1, xref + (3 if broken_xref else 0)))
    return bytes(out)


DOCS = {"/deep.html": (b"<html><body>" + b"<div>" * 200000 + b"deep text</body></html>", "text/html"),
        "/pages.pdf": (pdf_of_pages(300000), "application/pdf"),
        "/broken.pdf": (pdf_of_pages(300000, broken_xref=True), "application/pdf"),
        "/claims.pdf": (pdf_of_pages(1, count=300000000), "application/pdf")}


class Docs(BaseHTTPRequestHandler):
    def do_GET(self):
        body, mime = DOCS.get(self.path, (b"not found", "text/plain"))
        self.send_response(200 if self.path in DOCS else 404)
        self.send_header("Content-Type", mime)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


docs = ThreadingHTTPServer(("127.0.0.1", 0), Docs)
threading.Thread(target=docs.serve_forever, daemon=True).start()
os.makedirs(os.path.join(WORK, "data"))
srv = Server(BIN, WORK, os.path.join(WORK, "state"), pre=["--root", os.path.join(WORK, "data")], offline=False,
             env={"BIOAGENT_ALLOW_PRIVATE_URLS": "1", "BIOAGENT_CACHE_DIR": os.path.join(WORK, "cache")})
P = srv.port
try:
    SID = json.loads(post(P, "/api/sessions", {})[2])["session_id"]

    # ---- tables: bounded before they are built
    small = xlsx('<row r="1"><c r="A1"><v>7</v></c><c r="B1" t="inlineStr"><is><t>seven</t></is></c></row>')
    tables = [("ok.xlsx", small, None),
              ("ok.csv", b"gene,value\nG1,1\n", None),
              ("wide.csv", b"," * 16383 + b"\n" + b"1\n" * 100000, "limit_cells"),
              ("many.csv", b"1,2\n" * 600000, "limit_cells"),
              ("text.csv", (b"x" * 1000000 + b"\n") * 34, "limit_text_bytes"),
              ("wide.xlsx", xlsx('<row r="1"><c r="XFD1"><v>1</v></c></row>' +
                                 "".join('<row r="%d"><c r="A%d"><v>1</v></c></row>' % (i, i)
                                         for i in range(2, 200001))), "limit_cells"),
              ("shared.xlsx", xlsx("".join('<row r="%d"><c r="A%d" t="s"><v>0</v></c></row>' % (i, i)
                                           for i in range(1, 12001)), shared=["S" * 1000000]), "limit_text_bytes"),
              ("dup.xlsx", xlsx('<row r="1"><c r="A1"><v>1</v></c></row>',
                                duplicate_sheet='<row r="1"><c r="A1"><v>2</v></c></row>'), "duplicate")]
    st, _, _ = upload(P, SID, "crlf.xlsx", xlsx('<row r="1"><c r="A1" t="inlineStr"><is><t>one\r\ntwo</t>'
                                                '</is></c></row>'))
    st, _, b = post(P, "/api/tools/get_raw_excel_data", {"file_path": "crlf.xlsx"}, SID)
    cell = json.loads(b)["data"]["data"][0][0] if st == 200 else None
    check(cell == "one\ntwo", "an xlsx cell's CR LF is read as LF, as XML says (%r)" % cell)
    for name, data, limit in tables:
        st, _, b = upload(P, SID, name, data)
        check(st == 200, "upload %s (%d bytes) -> %s" % (name, len(data), st))
        t0 = time.time()
        st, _, b = post(P, "/api/tools/get_raw_excel_data", {"file_path": name}, SID)
        took = time.time() - t0
        body = json.loads(b)
        if limit is None:
            check(st == 200 and body["data"]["n_rows"] >= 1 and body["data"]["data"], "%s reads (%s)" % (name, st))
        elif limit == "duplicate":
            msg = body.get("error", {}).get("message", "") or body.get("data", {}).get("message", "")
            check(st in (200, 400, 422) and "ambiguous" in msg and not body.get("data", {}).get("data"),
                  "%s is refused as ambiguous (%s: %s)" % (name, st, msg[:90]))
        else:
            err = body.get("error", {})
            check(st == 413 and limit in err.get("details", {}) and "refused" in err.get("message", "")
                  and WORK not in err.get("message", "") and took < 20,
                  "%s is refused before it is built, naming %s (%s in %.1f s: %s)"
                  % (name, limit, st, took, err.get("message", "")[:100]))
        st, _, _ = http(P, "GET", "/api/config")
        check(st == 200, "  ... the server still answers")

    # ---- parsing within the URL's deadline
    base = "http://127.0.0.1:%d" % docs.server_address[1]
    for path, want in [("/deep.html", "deep text"), ("/pages.pdf", "stopped after 2000 of 300000 pages"),
                       ("/broken.pdf", "stopped after 2000 of 300000 pages"),
                       ("/claims.pdf", "page tree names more pages than it holds")]:
        t0 = time.time()
        st, _, b = post(P, "/api/tools/fetch_text_from_urls",
                        {"paper_info_list": [{"url": base + path, "title": "t"}]}, timeout=120)
        took = time.time() - t0
        text = json.loads(b)["data"][0]["retrieved_text_content"] if st == 200 else ""
        ok = st == 200 and took < 35 and 0 < len(text) <= 16000 and want in text
        check(ok, "fetch_text_from_urls %s (%d bytes) -> %s in %.1f s, %d characters: %r"
              % (path, len(DOCS[path][0]), st, took, len(text), text[-120:]))
        st, _, _ = http(P, "GET", "/api/config")
        check(st == 200 and srv.proc.poll() is None, "  ... the server still answers")
finally:
    srv.stop()
    docs.shutdown()
    shutil.rmtree(WORK, ignore_errors=True)

print("%d failures" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
