/// The HTML report's style sheet (inline in the page: the report loads nothing), and the pieces of it
/// the snapshot browser (`LeakGraphWeb`) uses too, so that both show leaks and backtraces alike.
public enum HTMLStyle {
    /// The colours as CSS custom properties on `:root` (`--red`, `--member`, `--held`, `--muted`, …),
    /// the same as the graphs' (see `GraphStyle`).
    public static let palette = """
        :root { color-scheme: light; --red: #c62828; --ink: #1f2328; --muted: #656d76; --line: #d0d7de;
          --paper: #ffffff; --bg: #f6f8fa; --member: #ffd9d9; --held: #e6e6e6; }

        """

    /// A creation backtrace (``HTMLBacktrace``): `ol.frames`, the place of each frame (`.where`) and
    /// the creation site's tag (`.site-tag`). Uses ``palette``.
    public static let frames = """
        ol.frames { margin: 0 0 8px; padding-left: 28px; font-size: 13px; }
        ol.frames li { margin: 2px 0; word-break: break-word; }
        ol.frames li.site code { font-weight: 700; }
        .where { color: var(--muted); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
          font-size: 12px; }
        .site-tag { background: var(--red); color: #fff; font-size: 11px; border-radius: 8px; padding: 0 7px; }

        """

    /// The whole style sheet of the HTML report.
    static let css = palette + layout + frames + closing

    /// The report's own rules before the backtraces'.
    private static let layout = """
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--ink);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
        main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 40px; }
        h1 { font-size: 26px; margin: 0 0 4px; }
        h1 .program { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        h2 { font-size: 20px; margin: 0 0 12px; }
        h2 small, h4 small { color: var(--muted); font-weight: normal; font-size: 14px; }
        h3 { font-size: 16px; margin: 20px 0 8px; }
        h4 { font-size: 15px; margin: 0 0 6px; }
        code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
        .muted { color: var(--muted); }
        .command { margin: 0 0 18px; word-break: break-all; }
        section { background: var(--paper); border: 1px solid var(--line); border-radius: 10px;
          padding: 18px 22px; margin: 0 0 20px; }
        section.stats { display: flex; flex-wrap: wrap; gap: 12px; background: none; border: none; padding: 0; }
        .stat { flex: 1 1 150px; background: var(--paper); border: 1px solid var(--line); border-radius: 10px;
          padding: 12px 16px; }
        .stat b { display: block; font-size: 26px; line-height: 1.2; }
        .stat span { color: var(--muted); font-size: 13px; }
        .stat.bad b { color: var(--red); }
        .stat.good b { color: #1a7f37; }
        .verdict.good { background: #dafbe1; border: 1px solid #4ac26b; border-radius: 10px; padding: 12px 16px;
          font-weight: 600; color: #1a7f37; }
        .verdict.baseline { background: #f6f8fa; border: 1px solid var(--line); border-radius: 10px;
          padding: 12px 16px; font-weight: 600; }
        section.cycle.suppressed { opacity: .6; }
        section.cycle.suppressed:hover { opacity: 1; }
        .suppressed-note { margin: 0 0 12px; color: var(--muted); }
        tr.suppressed td { color: var(--muted); }
        table.cycles tr.suppressed td:first-child a { color: var(--muted); }
        .suppressed-tag { background: var(--held); color: #444; font-size: 11px; border-radius: 8px; padding: 0 7px; }
        table { border-collapse: collapse; width: 100%; font-size: 14px; }
        th, td { text-align: left; vertical-align: top; padding: 7px 10px; border-bottom: 1px solid var(--line); }
        th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
        table.cycles td:first-child a { font-weight: 600; color: var(--red); text-decoration: none; }
        .hint { color: var(--muted); font-size: 13px; }
        .suspect { border-left: 4px solid var(--red); background: #fff1f0; padding: 8px 14px; margin: 0 0 12px;
          border-radius: 0 8px 8px 0; }
        .suspect p { margin: 4px 0; }
        .fingerprint { margin: 0 0 12px; color: var(--muted); }
        figure.graph { margin: 0; }
        .graph-frame { overflow: auto; border: 1px solid var(--line); border-radius: 8px; background: #fff;
          padding: 8px; }
        .graph-frame svg { display: block; margin: 0 auto; max-width: 100%; max-height: 1100px; width: auto;
          height: auto; }
        .legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12px; color: var(--muted);
          margin-top: 8px; align-items: center; }
        .legend span { display: inline-flex; align-items: center; gap: 6px; }
        .swatch { display: inline-block; width: 16px; height: 12px; border-radius: 3px; }
        .swatch.member { background: var(--member); border: 2px solid var(--red); }
        .swatch.held { background: var(--held); border: 1px solid #8a8a8a; }
        .line { display: inline-block; width: 26px; height: 2px; background: #5f5f5f; }
        .line.in-cycle { background: var(--red); }
        .line.not-strong { background: repeating-linear-gradient(90deg, #9e9e9e 0 5px, transparent 5px 8px); }
        .line.suspect-edge { height: 4px; background: red; }
        pre.trace { background: #f6f8fa; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
          white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.45; margin: 0; }
        td.types { min-width: 200px; overflow-wrap: anywhere; word-break: break-word; }
        td.suspect-cell, td.found { overflow-wrap: anywhere; word-break: break-word; }
        td.found { min-width: 14em; font-size: 13px; }
        td.suspect-cell { min-width: 13em; }
        td.suspect-cell code, td.types code { white-space: normal; }
        table.cycles { table-layout: auto; }
        abbr[title] { text-decoration: underline dotted; cursor: help; }
        .suspect p, h2, .found { overflow-wrap: anywhere; }
        .found { margin: 0 0 12px; }
        .verdict.bad { background: #fff1f0; border: 1px solid var(--red); border-radius: 10px; padding: 12px 16px;
          font-weight: 600; color: var(--red); }
        details.library { margin: 0 0 20px; }
        details.library > summary { cursor: pointer; font-weight: 600; padding: 10px 0; }
        tbody.library-rows td { padding: 0; border: none; }
        tbody.library-rows summary { cursor: pointer; color: var(--muted); padding: 7px 10px; }
        .more-families { margin: 10px 0 0; }
        details.objects { margin-top: 16px; }
        details.objects summary { cursor: pointer; font-weight: 600; }
        .object-group { border-top: 1px solid var(--line); padding: 10px 0 4px; }
        .object-group:first-of-type { margin-top: 8px; }
        .role { font-size: 11px; font-weight: 600; padding: 1px 7px; border-radius: 9px; vertical-align: 2px; }
        .role.member { background: var(--member); color: #8e1b1b; }
        .role.held { background: var(--held); color: #444; }
        .role.unlisted { background: #fff4c2; color: #7a5a00; }
        .addresses { margin: 0 0 6px; line-height: 1.9; }
        .addresses code { background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }

        """

    /// The report's own rules after the backtraces'.
    private static let closing = """
        footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 24px; }

        """
}
