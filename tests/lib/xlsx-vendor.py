#!/usr/bin/python3
"""xlsx-vendor.py: plays the vendor's side of the workbook round trip for
tests/cli/cli-assess-xlsx.sh, with openpyxl (a real spreadsheet library, not
aivet's writer): shows what an exported workbook holds, fills it in as a
vendor's security team would, and makes the broken workbooks the import must
refuse (a ZIP bomb, formulas, bad UTF-8, malformed XML) by editing the parts
of a real one.

  xlsx-vendor.py show IN                 sheets, states, cells, validations
  xlsx-vendor.py fill IN OUT [1904]      the vendor's answers (see fill())
  xlsx-vendor.py template IN OUT         answers in a blank template
  xlsx-vendor.py formula IN OUT          an answer typed as a formula
  xlsx-vendor.py answer IN OUT QID VALUE one answer typed as text
  xlsx-vendor.py answers IN OUT QID=VALUE...  answers typed as text (an empty VALUE
                                         blanks the cell; a number typed as one)
  xlsx-vendor.py question IN OUT QID TEXT the locked question text reworded
  xlsx-vendor.py bomb IN OUT             an entry inflating 1000 times
  xlsx-vendor.py entries IN OUT          2,100 entries
  xlsx-vendor.py badutf8 IN OUT          a shared string with a stray byte (aivet's export)
  xlsx-vendor.py malformed IN OUT        the answers sheet cut short
  xlsx-vendor.py inline IN OUT           rich runs, an inline string, a boolean (aivet's export)
  xlsx-vendor.py twoinline IN OUT        a cell with two inline strings, the second never closed
  xlsx-vendor.py shared IN OUT SIZE CELLS [STRINGS]
                                         STRINGS (1) shared strings of SIZE random letters,
                                         the first referred to from CELLS cells of an
                                         unnamed column (aivet's export)
  xlsx-vendor.py escape IN OUT QID       an answer holding _x001B_ (ESC) (aivet's export)
"""
import datetime
import sys
import zipfile

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904


def rows_by_id(ws):
    hdr = [c.value for c in ws[1]]
    qcol = hdr.index("Question ID") + 1
    return {ws.cell(row=r, column=qcol).value: r for r in range(2, ws.max_row + 1)}, hdr


def show(path):
    wb = openpyxl.load_workbook(path)
    for ws in wb:
        print(f"sheet {ws.title} {ws.sheet_state} protected={ws.protection.sheet}")
    ws = wb["Answers"]
    print("header", [c.value for c in ws[1]])
    print("freeze", ws.freeze_panes)
    print("locked", ws["B2"].protection.locked, "E2", ws["E2"].protection.locked, "F2", ws["F2"].protection.locked)
    print("print", ws.page_setup.orientation, ws.print_title_rows, ws.sheet_properties.pageSetUpPr.fitToPage)
    for dv in ws.data_validations.dataValidation:
        print("validation", dv.sqref, dv.type, dv.formula1, dv.formula2)
    for row in ws.iter_rows(min_row=2, values_only=True):
        print("row", row)
    m = wb["aivet"]
    for row in m.iter_rows(max_row=5, values_only=True):
        print("meta", row)


def fill(src, dst, epoch1904=False):
    """The vendor's answers: a dropdown value, a typed number and date, a
    multi-choice with the documented separator, notes with a line break;
    then the guidance column hidden, a blank row inserted and the answer and
    note columns swapped, as people do to their own copy."""
    wb = openpyxl.load_workbook(src)
    if epoch1904:
        wb.epoch = CALENDAR_MAC_1904
    ws = wb["Answers"]
    at, hdr = rows_by_id(ws)
    a, n = hdr.index("Answer") + 1, hdr.index("Note") + 1
    ws.cell(row=at["gate"], column=a).value = "no"
    ws.cell(row=at["notify"], column=a).value = "48h"
    ws.cell(row=at["tokens"], column=a).value = 500
    ws.cell(row=at["tokens"], column=n).value = "measured\nin March"
    ws.cell(row=at["channels"], column=a).value = "b, a"
    ws.cell(row=at["since"], column=a).value = datetime.datetime(2026, 3, 1)
    ws.cell(row=at["since"], column=a).number_format = "yyyy-mm-dd"
    ws.cell(row=at["limit"], column=a).value = "error"
    ws.column_dimensions["D"].hidden = True
    ws.insert_rows(4, 2)
    # Answer and Note change places.
    last = ws.max_row
    ws.move_range(f"E1:E{last}", cols=3)
    ws.move_range(f"F1:F{last}", cols=-1)
    ws.move_range(f"H1:H{last}", cols=-2)
    wb.save(dst)


def template(src, dst):
    wb = openpyxl.load_workbook(src)
    ws = wb["Answers"]
    at, hdr = rows_by_id(ws)
    a, n = hdr.index("Answer") + 1, hdr.index("Note") + 1
    ws.cell(row=at["gate"], column=a).value = "yes"
    ws.cell(row=at["detail"], column=a).value = "fine"
    ws.cell(row=at["notify"], column=a).value = "24h"
    ws.cell(row=at["notify"], column=n).value = "see contract"
    wb.save(dst)


def formula(src, dst):
    wb = openpyxl.load_workbook(src)
    ws = wb["Answers"]
    at, hdr = rows_by_id(ws)
    ws.cell(row=at["tokens"], column=hdr.index("Answer") + 1).value = "=400+100"
    ws.cell(row=at["gate"], column=hdr.index("Answer") + 1).value = "no"
    wb.save(dst)


def answer(src, dst, qid, value):
    answers(src, dst, [f"{qid}={value}"], numbers=False)


def answers(src, dst, pairs, numbers=True):
    wb = openpyxl.load_workbook(src)
    ws = wb["Answers"]
    at, hdr = rows_by_id(ws)
    for pair in pairs:
        qid, value = pair.split("=", 1)
        if numbers and value.lstrip("-").replace(".", "", 1).isdigit():
            value = float(value)
        ws.cell(row=at[qid], column=hdr.index("Answer") + 1).value = value if value != "" else None
    wb.save(dst)


def question(src, dst, qid, text):
    wb = openpyxl.load_workbook(src)
    ws = wb["Answers"]
    at, hdr = rows_by_id(ws)
    ws.cell(row=at[qid], column=hdr.index("Question") + 1).value = text
    wb.save(dst)


def rewrite(src, dst, change, extra=None):
    """Copies a workbook, passing each part through change(name, bytes)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item.filename, change(item.filename, zin.read(item.filename)))
        for name, data in (extra or []):
            zout.writestr(name, data)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "show":
        show(args[0])
    elif cmd == "fill":
        fill(args[0], args[1], len(args) > 2 and args[2] == "1904")
    elif cmd == "template":
        template(args[0], args[1])
    elif cmd == "formula":
        formula(args[0], args[1])
    elif cmd == "answer":
        answer(args[0], args[1], args[2], args[3])
    elif cmd == "answers":
        answers(args[0], args[1], args[2:])
    elif cmd == "question":
        question(args[0], args[1], args[2], args[3])
    elif cmd == "bomb":
        rewrite(args[0], args[1], lambda n, d: d, [("xl/media/pad.xml", b" " * (20 << 20))])
    elif cmd == "entries":
        rewrite(args[0], args[1], lambda n, d: d, [(f"xl/pad/{i}.xml", b"") for i in range(2100)])
    elif cmd == "badutf8":
        rewrite(args[0], args[1],
                lambda n, d: d.replace(b"<t>Gate?</t>", b"<t>Gate\xff?</t>", 1) if n == "xl/sharedStrings.xml" else d)
    elif cmd == "malformed":
        rewrite(args[0], args[1],
                lambda n, d: d[: len(d) // 2] if n == "xl/worksheets/sheet2.xml" else d)
    elif cmd == "twoinline":
        # The first answer cell holds a whole inline string, then a second
        # one whose runs run into the cell's end tag. The runs are many, so
        # that libxml2's reader meets the bad tag only once inside the second.
        runs = b"<r><t>z</t></r>" * 2000
        def change(n, d):
            if n != "xl/worksheets/sheet2.xml":
                return d
            s = d.decode()
            import re
            s, k = re.subn(r'<c r="E2"([^>]*?)(/>|>.*?</c>)',
                           '<c r="E2" t="inlineStr"><is><t>yes</t></is><is><t>no</t>' + runs.decode() + '</c>',
                           s, count=1)
            assert k == 1
            return s.encode()
        rewrite(args[0], args[1], change)
    elif cmd == "shared":
        # Random letters, so that the part compresses as text does (not as a
        # ZIP bomb would): the reader's own caps are what is tested.
        import random
        size, cells = int(args[2]), int(args[3])
        strings = int(args[4]) if len(args) > 4 else 1
        rnd = random.Random(7)
        # Seeded random bytes, each mapped to one of the 26 letters: random
        # letters as drawing one at a time gave, made at C speed rather than
        # one Python call per character (26 million of them here).
        letters = bytes(ord("a") + i % 26 for i in range(256))
        def change(n, d):
            import re
            if n == "xl/sharedStrings.xml":
                s = d.decode()
                first = len(re.findall(r"<si>", s))
                change.first = first
                add = "".join("<si><t>" + rnd.randbytes(size).translate(letters).decode() + "</t></si>"
                              for _ in range(strings))
                return s.replace("</sst>", add + "</sst>").encode()
            return d
        def sheet(n, d):
            if n != "xl/worksheets/sheet2.xml":
                return d
            rows = "".join(f'<row r="{100 + i}"><c r="H{100 + i}" t="s"><v>{change.first}</v></c></row>'
                           for i in range(cells))
            return d.replace(b"</sheetData>", rows.encode() + b"</sheetData>")
        # sharedStrings.xml comes after the sheets in aivet's archive: read it first.
        with zipfile.ZipFile(args[0]) as z:
            sst = change("xl/sharedStrings.xml", z.read("xl/sharedStrings.xml"))
        rewrite(args[0], args[1], lambda n, d: sst if n == "xl/sharedStrings.xml" else sheet(n, d))
    elif cmd == "escape":
        # openpyxl refuses to write a control character; Excel stores one as
        # _x001B_, which is what the part gets here.
        answer(args[0], args[1] + ".tmp", args[2], "ok-ESC-[2Jcleared")
        rewrite(args[1] + ".tmp", args[1], lambda n, d: d.replace(b"ok-ESC-", b"ok_x001B_"))
    elif cmd == "inline":
        # In a workbook aivet wrote (shared strings): gate as a boolean,
        # notify as an inline string in two rich runs, and notify's note as
        # a shared string in rich runs with a phonetic run, which is no text.
        def change(n, d):
            if n == "xl/sharedStrings.xml":
                return d.replace(b"<si><t>contract 4.2</t></si>",
                                 b'<si><r><rPr><b/></rPr><t>contract</t></r><r><t xml:space="preserve"> 4.3</t></r>'
                                 b'<rPh sb="0" eb="1"><t>ignored</t></rPh></si>', 1)
            if n != "xl/worksheets/sheet2.xml":
                return d
            s = d.decode()
            wb = openpyxl.load_workbook(args[0])
            at, hdr = rows_by_id(wb["Answers"])
            col = "ABCDEFGH"[hdr.index("Answer")]
            g, nt = f'{col}{at["gate"]}', f'{col}{at["notify"]}'
            import re
            s = re.sub(rf'<c r="{g}"([^>]*?)(/>|>.*?</c>)', f'<c r="{g}" t="b"><v>1</v></c>', s, count=1)
            s = re.sub(rf'<c r="{nt}"([^>]*?)(/>|>.*?</c>)',
                       f'<c r="{nt}" t="inlineStr"><is><r><rPr><b/></rPr><t>7</t></r>'
                       f'<r><t>2h</t></r><rPh sb="0" eb="1"><t>x</t></rPh></is></c>', s, count=1)
            return s.encode()
        rewrite(args[0], args[1], change)
    else:
        sys.exit(f"unknown command {cmd}")


main()
