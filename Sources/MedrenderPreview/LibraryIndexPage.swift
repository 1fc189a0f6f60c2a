/// The `index.html` of a built library: every output with its preset, length, loudness, a player
/// and a link to its preview page.
public struct LibraryIndexPage: Sendable {
    /// One output of the build.
    public struct Entry: Hashable, Sendable {
        /// The audio file's name, relative to the index.
        public var file: String
        public var preset: String
        /// `15 min`, `40 cycles`.
        public var length: String
        public var durationSeconds: Double
        public var format: String
        public var loudnessLUFS: Double?
        public var truePeakDBTP: Double?
        /// The preview page's name, relative to the index, when there is one.
        public var preview: String?

        public init(file: String, preset: String, length: String, durationSeconds: Double, format: String,
                    loudnessLUFS: Double? = nil, truePeakDBTP: Double? = nil, preview: String? = nil) {
            self.file = file
            self.preset = preset
            self.length = length
            self.durationSeconds = durationSeconds
            self.format = format
            self.loudnessLUFS = loudnessLUFS
            self.truePeakDBTP = truePeakDBTP
            self.preview = preview
        }
    }

    public var title: String
    public var entries: [Entry]

    public init(title: String = "medrender library", entries: [Entry]) {
        self.title = title
        self.entries = entries.sorted { ($0.preset, $0.durationSeconds, $0.file) < ($1.preset, $1.durationSeconds, $1.file) }
    }

    /// A file name as a relative URL: each path part percent-encoded.
    static func href(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let ch = Character(Unicode.Scalar(byte))
            if ch.isLetter && byte < 0x80 || ch.isNumber && byte < 0x80 || "-._~/".contains(ch) {
                out.append(ch)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }

    /// The page.
    public var html: String {
        var rows = ""
        for entry in entries {
            let loudness = entry.loudnessLUFS.map { Markup.number($0, decimals: 1) + " LUFS" } ?? "–"
            let peak = entry.truePeakDBTP.map { Markup.number($0, decimals: 1) + " dBTP" } ?? "–"
            let preview = entry.preview.map { "<a href=\"\(Markup.escape(Self.href($0)))\">preview</a>" } ?? ""
            rows += """
                <tr><td class="preset">\(Markup.escape(entry.preset))</td><td>\(Markup.escape(entry.length))</td>\
                <td>\(Markup.clock(entry.durationSeconds))</td><td>\(Markup.escape(entry.format))</td><td>\(loudness)</td><td>\(peak)</td>\
                <td><audio controls preload="none" src="\(Markup.escape(Self.href(entry.file)))"></audio></td>\
                <td><a href="\(Markup.escape(Self.href(entry.file)))">\(Markup.escape(entry.file))</a></td><td>\(preview)</td></tr>

                """
        }
        return """
            \(Markup.documentHead(language: "en", title: Markup.escape(title)))
            <style>
            body{margin:0;background:#f3f6f8;color:#2b3a4a;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
            main{max-width:1200px;margin:0 auto;padding:16px}
            h1{font-size:1.35rem;font-weight:600}
            .wrap{overflow-x:auto;background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(40,60,80,.08)}
            table{border-collapse:collapse;width:100%}
            th,td{padding:8px 10px;text-align:left;border-bottom:1px solid #e6ecf1;white-space:nowrap}
            th{font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:#6b7b8b}
            td.preset{font-weight:600}
            audio{height:32px;width:220px}
            a{color:#2f6a9a}
            </style>
            </head>
            <body>
            <main>
            <h1>\(Markup.escape(title))</h1>
            <p>\(entries.count) outputs</p>
            <div class="wrap"><table>
            <thead><tr><th>Preset</th><th>Length</th><th>Duration</th><th>Format</th><th>Loudness</th><th>True peak</th><th>Play</th><th>File</th><th></th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table></div>
            </main>
            </body>
            </html>

            """
    }
}
