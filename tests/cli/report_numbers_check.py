#!/usr/bin/env python3
"""Every count a gene-family run's report states agrees with the run's own tables.

Usage: report_numbers_check.py RUN_DIR [RUN_DIR...]

Reads each run's final/<Sp>.<Fam>.report.md, findings.json and the TSV/JSON files the stages
wrote (final/ and stages/<stage>-<key>/), recounts every number the report and findings state
(members, isoforms merged, members without a position, tandem clusters and their genes,
structures drawn, gene-map proteins and genes, collinear blocks, Ka/Ks pairs) and requires that
a stage that did not finish in the run gives "not run", never a number. Prints one line per
comparison; exits 1 on the first run with a disagreement. Works on English and Chinese reports.
"""
import glob
import json
import os
import re
import sys


def rows(path):
    """A TSV's data rows as dicts (header first); [] when the file is absent."""
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    if not lines:
        return []
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def stage_folder(run, stage):
    """The stage's working folder of this run (the one the run's status names, else the newest)."""
    status = os.path.join(run, "status.json")
    if os.path.exists(status):
        try:
            for s in json.load(open(status, encoding="utf-8")).get("stages", []):
                if s.get("stage") == stage and s.get("folder"):
                    return s["folder"]
        except (ValueError, KeyError):
            pass
    found = sorted(glob.glob(os.path.join(run, "stages", stage + "-*")), key=os.path.getmtime)
    return found[-1] if found else None


def load_json(path):
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Checker:
    def __init__(self, run):
        self.run, self.failures, self.lines = run, 0, []

    def same(self, what, stated, counted):
        ok = stated == counted
        self.failures += not ok
        self.lines.append(f"{'ok  ' if ok else 'FAIL'} {what}: stated {stated}, counted {counted}")

    def check(self):
        final = os.path.join(self.run, "final")
        found = glob.glob(os.path.join(final, "*.findings.json"))
        if not found:
            self.lines.append(f"SKIP {self.run}: no findings.json (the report did not run)")
            return 0
        base = found[0][: -len("findings.json")]
        findings = load_json(found[0])
        report = open(base + "report.md", encoding="utf-8").read()
        zh = "基因家族分析报告" in report
        states = findings.get("stage_states", {})
        finished = {n for n, s in states.items() if s.get("state") in ("done", "cached", "warn")}

        members = rows(os.path.join(stage_folder(self.run, "identify") or "", "members.tsv")) or []
        n = len(members)
        self.same("findings member_count vs members.tsv rows", findings.get("member_count"), n)
        gene_table = re.findall(r"^\| (\S+) \| ", report.split("## ", 3)[2] if report.count("## ") >= 2 else "", re.M)
        self.same("gene list rows vs members.tsv rows", len([g for g in gene_table if g not in ("gene", "基因", "name", "名称", "---")]), n)
        m = re.search(r"(\d+) (?:\S+ genes were identified|个 \S+ 基因)", report) if not zh else re.search(r"鉴定到 (\d+) 个", report)
        if m:
            self.same("summary member count", int(m.group(1)), n)
        unplaced = sum(1 for r in members if r.get("seqid") == "—")
        m = re.search(r"(\d+) members have no position", report) or re.search(r"(\d+) 个成员没有 GFF3 中的位置", report)
        self.same("members without a position", int(m.group(1)) if m else 0, unplaced)

        ident = load_json(os.path.join(stage_folder(self.run, "identify") or "", "identify.json")) or {}
        if ident:
            self.same("identify.json members", ident.get("members"), n)
            merged = ident.get("isoforms_collapsed")
            m = re.search(r"(\d+) proteins passed the filters: (\d+) genes, (\d+) isoforms", report)
            if m:
                self.same("identification genes", int(m.group(2)), n)
                self.same("identification isoforms merged", int(m.group(3)), merged)

        def stage_number(stage, value, counted, what):
            if stage not in finished:
                self.same(f"{what} of a stage that did not finish ({stage})", value, "not run")
            else:
                self.same(what, value, counted)

        chrom_dir = stage_folder(self.run, "chromosome")
        positions = rows(os.path.join(chrom_dir or "", "final", os.path.basename(base) + "chromosome_positions.tsv"))
        if positions is None:
            positions = rows(base + "chromosome_positions.tsv") or []
        clusters = {r.get("tandem_cluster") for r in positions if r.get("tandem_cluster") not in (None, "", "—", "-")}
        in_clusters = sum(1 for r in positions if r.get("tandem_cluster") not in (None, "", "—", "-"))
        stage_number("chromosome", findings.get("tandem_clusters"), len(clusters), "tandem clusters")
        stage_number("chromosome", findings["duplication"].get("tandem_cluster_genes"), in_clusters, "genes in tandem clusters")
        m = re.search(r"; (\d+) tandem clusters", report) or re.search(r"；(\d+) 个串联重复簇", report)
        if "chromosome" in finished:
            self.same("summary tandem clusters", int(m.group(1)) if m else None, len(clusters))
        else:
            self.same("summary states no tandem count for a stage not run", m is None, True)

        if "structure" in finished:
            structures = rows(os.path.join(stage_folder(self.run, "structure") or "", "final",
                                           os.path.basename(base) + "gene_structure.tsv"))
            if structures is None:
                structures = rows(base + "gene_structure.tsv") or []
            m = re.search(r"(\d+) members' exon-intron structures", report) or re.search(r"(\d+) 个成员的外显子", report)
            if m:
                self.same("structures drawn", int(m.group(1)), len(structures))

        gene_map = rows(os.path.join(stage_folder(self.run, "check") or "", "gene_map.tsv"))
        m = re.search(r"Gene map \(gene_map.tsv\): (\d+) proteins of (\d+) genes", report) or re.search(
            r"基因对照表（gene_map.tsv）：(\d+) 个蛋白对应 (\d+) 个基因", report)
        if gene_map is not None and m:
            self.same("gene map proteins", int(m.group(1)), len(gene_map))
            self.same("gene map genes", int(m.group(2)), len({r.get("gene") for r in gene_map}))

        collinearity = glob.glob(base + "collinearity")
        blocks = None
        if collinearity:
            blocks = sum(1 for l in open(collinearity[0], encoding="utf-8") if l.startswith("## Alignment"))
        stage_number("synteny", findings["duplication"].get("collinear_blocks"), blocks, "collinear blocks")
        kaks = rows(base + "kaks.tsv")
        stage_number("kaks", findings["duplication"].get("pairs_with_kaks"), len(kaks) if kaks is not None else None,
                     "Ka/Ks pairs")
        return self.failures


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    failed = 0
    for run in argv[1:]:
        c = Checker(run)
        bad = c.check()
        print(f"== {run}")
        print("\n".join(c.lines))
        failed += bad
    print(f"report numbers: {'all agree' if not failed else str(failed) + ' disagreement(s)'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
