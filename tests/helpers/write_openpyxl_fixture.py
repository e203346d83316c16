#!/usr/bin/env python3
"""Writes xlsx files with openpyxl (a third-party writer) for the reader tests.

Usage: write_openpyxl_fixture.py OUT_DIR
Writes values.xlsx (two sheets: typed values with gaps, merged cells) and
mac1904.xlsx (the 1904 date system). The expected values are in the tests.
"""
import datetime
import sys

import openpyxl

out = sys.argv[1]
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Values"
ws.append(["gene", "score", "flag", "when", "note"])
ws.append(["TCF7", 0.1, True, datetime.datetime(2024, 3, 1), "naïve 中文 😀"])
ws.append(["BATF", -2.5, False, datetime.datetime(2024, 3, 1, 12, 30, 15), None])
ws.append(["TOX", 123456789012345, None, datetime.date(1999, 12, 31), "a\nb"])
ws.append(["EOMES", 1e-10, None, None, "  padded  "])
ws["G7"] = "sparse"          # far from the rest: columns F and row 6 stay empty
ws["B7"] = 3
ws["A8"] = "=1+1"            # a formula with no cached value reads as empty
ws["C8"] = datetime.time(6, 15)
second = wb.create_sheet("Merged")
second["A1"] = "Wave1"
second.merge_cells("A1:C1")
second["A2"] = 7
wb.save(f"{out}/values.xlsx")

mac = openpyxl.Workbook()
mac.epoch = openpyxl.utils.datetime.CALENDAR_MAC_1904
mac.active.append([datetime.datetime(2020, 1, 2), 42])
mac.save(f"{out}/mac1904.xlsx")
