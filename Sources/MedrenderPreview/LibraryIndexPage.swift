/// The `index.html` of a built library: every output as a card with its preset's title and
/// description, length, loudness, a player and links to the file and its preview page. The cards
/// fill as many columns as the window has room for, one on a phone, and nothing is hidden or cut
/// at any width.
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
        /// The preset's title and description, when its file was found.
        public var title: String?
        public var description: String?

        public init(file: String, preset: String, length: String, durationSeconds: Double, format: String,
                    loudnessLUFS: Double? = nil, truePeakDBTP: Double? = nil, preview: String? = nil,
                    title: String? = nil, description: String? = nil) {
            self.title = title
            self.description = description
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
        var cards = ""
        for entry in entries {
            let loudness = entry.loudnessLUFS.map { Markup.number($0, decimals: 1) + " LUFS" } ?? "–"
            let peak = entry.truePeakDBTP.map { Markup.number($0, decimals: 1) + " dBTP" } ?? "–"
            let preview = entry.preview.map { " · <a href=\"\(Markup.escape(Self.href($0)))\">preview</a>" } ?? ""
            let description = entry.description.map { $0.isEmpty ? "" : "<p class=\"description\">\(Markup.escape($0))</p>" } ?? ""
            cards += """
                <article class="output"><h2>\(Markup.escape(entry.title ?? entry.preset))</h2>\(description)\
                <p class="facts"><span>\(Markup.escape(entry.length))</span><span>\(Markup.clock(entry.durationSeconds))</span>\
                <span>\(Markup.escape(entry.format))</span><span>\(loudness)</span><span>\(peak)</span></p>\
                <audio controls preload="none" src="\(Markup.escape(Self.href(entry.file)))"></audio>\
                <p class="links"><a href="\(Markup.escape(Self.href(entry.file)))">\(Markup.escape(entry.file))</a>\(preview)</p></article>

                """
        }
        return """
            \(Markup.documentHead(language: "en", title: Markup.escape(title)))
            <style>
            body{margin:0;background:#f3f6f8;color:#2b3a4a;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
            main{max-width:1200px;margin:0 auto;padding:16px}
            h1{font-size:1.35rem;font-weight:600}
            .outputs{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,320px),1fr));gap:16px}
            .output{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(40,60,80,.08);padding:14px 16px;min-width:0}
            .output h2{font-size:1.05rem;font-weight:600;margin:0 0 4px}
            .description{margin:0 0 8px;color:#4b5b6b}
            .facts{margin:0 0 10px;font-size:.85rem;color:#6b7b8b;display:flex;flex-wrap:wrap;gap:4px 12px}
            audio{display:block;width:100%;height:36px}
            .links{margin:10px 0 0;overflow-wrap:anywhere}
            a{color:#2f6a9a}
            </style>
            </head>
            <body>
            <main>
            <h1>\(Markup.escape(title))</h1>
            <p>\(entries.count) outputs</p>
            <div class="outputs">
            \(cards)</div>
            </main>
            </body>
            </html>

            """
    }
}
