"""Helpers of the security tests: raw HTTP/1.1 requests over a socket (paths
sent exactly as given, any header, bodies that lie about their length) and a
minimal one-page PDF. The server itself: tests/helpers/bioagent_server.py."""
import socket


def http(port, method, path, body=None, headers=None, timeout=30, send_body=True):
    """One request on its own connection -> (status, {lower-case header: value}, body bytes)."""
    headers = dict(headers or {})
    lines = ["%s %s HTTP/1.1" % (method, path)]
    if not any(k.lower() == "host" for k in headers):
        headers["Host"] = "127.0.0.1:%d" % port
    if body is not None and not any(k.lower() in ("content-length", "transfer-encoding") for k in headers):
        headers["Content-Length"] = str(len(body))
    headers.setdefault("Connection", "close")
    lines += ["%s: %s" % (k, v) for k, v in headers.items()]
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw)
        if body is not None and send_body:
            try:
                s.sendall(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused before the body was read
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
            head, sep, rest = data.partition(b"\r\n\r\n")
            if sep:
                length = [ln for ln in head.split(b"\r\n") if ln.lower().startswith(b"content-length:")]
                if length and len(rest) >= int(length[0].split(b":")[1]):
                    break
    finally:
        s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split()[1]) if len(status_line.split()) > 1 else 0
    hdrs = {}
    for ln in header_lines:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    if hdrs.get("transfer-encoding") == "chunked":
        out, buf = b"", rest
        while buf:
            size_line, _, buf = buf.partition(b"\r\n")
            n = int(size_line or b"0", 16)
            if n == 0:
                break
            out, buf = out + buf[:n], buf[n + 2:]
        rest = out
    return status, hdrs, rest


def minimal_pdf(text):
    """A valid one-page PDF showing `text` in Helvetica, with a correct xref table."""
    stream = ("BT /F1 18 Tf 72 720 Td (%s) Tj ET" % text).encode()
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return out
