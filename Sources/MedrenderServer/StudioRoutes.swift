import Foundation
import HTTPTypes
import Hummingbird
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderPreview
import NIOCore
import Synchronization

/// The studio's routes: the page (`GET /studio`) and its script and style
/// (`GET /studio/studio.js`, `GET /studio/studio.css`), a preset's YAML checked and planned without a
/// render (`POST /studio/plan`), saved into the folder the server was started with
/// (`POST /studio/save?name=NAME[&replace=1]`), heard from a point (`POST /studio/listen`, then
/// `GET /studio/listen/ID?from=SECONDS[&format=ogg]`), downloaded whole in any format
/// (`GET /studio/render/ID?format=`) and a phase's cue heard alone (`POST /studio/cue?kind=`).
///
/// Whatever is posted, the answer is a message: YAML that is not YAML or a bad field is a 422
/// with its line, column and field; a body over `StudioRoutes.maximumBodyBytes` a 413; a sound
/// outside the library a 422; a bad save name a 400; an existing preset not asked to be replaced
/// a 409.
enum StudioRoutes {
    /// The largest preset the studio takes, in bytes: the library's presets are a few KiB.
    static let maximumBodyBytes = 256 << 10

    /// The studio's paths, from the route table.
    static var paths: [String] { ServedRoute.all.map(\.path).filter { $0.hasPrefix("/studio") } }

    /// A save name: letters, digits, `-`, `_` and `.` inside, at most 64 characters, no path.
    static func checkName(_ name: String) throws(ServeError) -> String {
        var stem = name
        for ext in [".yaml", ".yml"] where stem.hasSuffix(ext) { stem = String(stem.dropLast(ext.count)) }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard !stem.isEmpty, stem.count <= 64, stem.unicodeScalars.allSatisfy({ allowed.contains($0) }),
              !stem.hasPrefix("."), !stem.contains("..")
        else {
            let shown = name.count > 64 ? String(name.prefix(64)) + "…" : name
            throw ServeError(.badRequest, "name '\(shown)': a preset's name is 1 to 64 letters, digits, '-', '_' or '.', "
                + "with no '/' and no '..', such as 'evening-478'")
        }
        return stem
    }
}

/// One error of a preset, as the page shows it: at its line and column, beside its field.
struct StudioIssue: Codable, Equatable {
    var line: Int?
    var column: Int?
    var field: String
    var message: String
}

/// YAML posted to listen to, by id: the newest few, so the audio element can GET them.
final class StudioTakes: Sendable {
    private let takes = Mutex<[(id: String, yaml: String)]>([])
    static let kept = 32

    func add(_ yaml: String) -> String {
        let id = LibraryStudioHash.hex(of: yaml)
        takes.withLock { takes in
            takes.removeAll { $0.id == id }
            takes.append((id, yaml))
            if takes.count > Self.kept { takes.removeFirst(takes.count - Self.kept) }
        }
        return id
    }

    func yaml(_ id: String) -> String? { takes.withLock { $0.first { $0.id == id }?.yaml } }
}

/// A short, stable id of a text (FNV-1a, 64 bits): a take's name, not a security boundary.
enum LibraryStudioHash {
    static func hex(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

extension MedrenderService {
    /// The page, with the library's languages and the voices installed here (found off the
    /// server's tasks: finding them runs the engines).
    func studioPage() async -> Response {
        let library = settings.library, canSave = settings.presetsDirectory != nil
        let html = await BlockingWork.run("medrender studio page") { () -> String in
            let languages = (try? library.languages().tags) ?? LanguageCatalog.stock.tags
            return StudioPage(canSave: canSave, languages: languages, voices: Self.installedVoices()).html
        }
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The voices a preset can name that are installed: each engine's own voice, and each Piper
    /// voice by name.
    static func installedVoices() -> [String] {
        SpeechSynthesizer.installedEngines().filter(\.installed).flatMap { entry in
            entry.engine == .piper ? PiperVoices.all().map { "piper:" + $0.name } : [entry.engine.rawValue]
        }
    }

    /// One of the page's files, as the program holds it. `no-cache`: a page of a newer server
    /// never runs an older script a browser kept.
    static func studioFile(_ file: StudioFile) -> Response {
        Response(status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// The posted YAML: UTF-8, at most `maximumBodyBytes`.
    func studioBody(_ request: Request) async throws -> String {
        let limit = StudioRoutes.maximumBodyBytes
        let tooLarge = ServeError(.contentTooLarge, "the preset is over \(limit / 1024) KiB; a preset is a few KiB of YAML")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw tooLarge }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw tooLarge
        }
        guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes),
              text.utf8.count == buffer.readableBytes, String(validating: text.utf8, as: UTF8.self) != nil
        else {
            throw ServeError(.badRequest, "the preset is not UTF-8 text; a preset is YAML")
        }
        return text
    }

    /// The file a posted preset stands for: in the presets folder, so its sounds are found as a
    /// library preset's are.
    var studioPresetFile: String { settings.library.presetsFolder + "/studio.yaml" }

    /// The posted preset as a job, or the issues that keep it from being one. Sounds must be the
    /// library's (`Sounds/`) or beside its presets, never a path outside them.
    func studioJob(_ yaml: String, for http: Request, format: OutputFormat = .wav(.int16),
                   layers: Set<Layer> = Set(Layer.allCases)) async throws -> RenderJob {
        // Decoded and confined on a thread of its own, never on a task of the server.
        let (library, presetFile) = (settings.library, studioPresetFile)
        let session = try await BlockingWork.run("medrender studio preset") {
            try Self.confinedSession(yaml, library: library, presetFile: presetFile)
        }
        return try await studioJob(session, yaml: yaml, for: http, format: format, layers: layers)
    }

    /// The posted YAML as a session, or every issue that keeps it from being one; a session that
    /// names a program or a file outside the library is refused.
    static func confinedSession(_ yaml: String, library: PresetLibrary, presetFile: String) throws -> Session {
        let session: Session
        // The library's languages; a catalog of its that does not read is the error to show.
        let languages = try library.languages()
        do {
            session = try PresetDecoder.decode(yaml, file: "preset", defaultName: "studio", languages: languages)
        } catch {
            // Every error, not only the first: the page shows each at its line and beside its field.
            let all = PresetDecoder.allErrors(yaml, file: "preset", defaultName: "studio", languages: languages)
            // In the order of the text, as the page lists them.
            let issues = (all.isEmpty ? [error] : all).enumerated().sorted {
                ($0.element.line ?? .max, $0.element.column ?? 0, $0.offset) < ($1.element.line ?? .max, $1.element.column ?? 0, $1.offset)
            }.map(\.element)
            throw ServeError.invalid(StudioInvalid(issues: issues.map {
                StudioIssue(line: $0.line, column: $0.column, field: $0.field, message: Face.query.naming($0.message))
            }))
        }
        // A posted preset names no program and no file outside the library: the same answer for a
        // file that is there and one that is not.
        do {
            try PresetConfinement(library: library, allowsCommandVoices: false).check(session, presetFile: presetFile, library: library)
        } catch {
            let word = error.field == "guide.voice" ? "command" : error.field == "metadata.cover" ? "cover" : Self.quoted(error.message)
            var issue = Self.locate(word, in: yaml, message: Face.query.naming(error.message))
            if let line = error.line, let column = error.column, error.field == "guide.voice" { (issue.line, issue.column) = (line, column) }
            issue.field = error.field
            throw ServeError.invalid(StudioInvalid(issues: [issue]))
        }
        return session
    }

    /// A decoded, confined session as a job: its sounds found and its speech synthesized under the
    /// render gate; a session longer than the server plans is an issue of its `minutes`.
    func studioJob(_ session: Session, yaml: String, for http: Request, format: OutputFormat,
                   layers: Set<Layer>) async throws -> RenderJob {
        let library = settings.library
        var asked = RenderRequest(session: session, presetFile: studioPresetFile,
                                  options: RenderOptions(length: session.defaultLength, layers: layers),
                                  format: format, destination: .standardOutput, library: library)
        asked.speechTimeLimitSeconds = settings.speechTimeLimitSeconds
        let render = asked
        let (sounds, loudness, maximum) = (self.sounds, self.loudness, settings.maximumMinutes)
        do {
            // Its sounds found and its speech synthesized under the render gate, on a thread of its own.
            return try await preparing(http) {
                var job = try render.job()
                job.soundCache = sounds
                job.loudnessCache = loudness
                let minutes = Double(try job.outline().total.milliseconds) / 60_000
                if let maximum, minutes > maximum + 1e-9 {
                    throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "minutes", message: String(
                        format: "the session is %.1f minutes; this server plans up to %g minutes", minutes, maximum))]))
                }
                return job
            }
        } catch let error as MissingSoundsError {
            throw ServeError.invalid(StudioInvalid(issues: [Self.locate(error.missing.first?.name ?? "", in: yaml, message: Self.unlibrary(error.worded(for: .query)))]))
        } catch let error as ServeError {
            throw error
        } catch let error as any DiagnosedError where error.category == .badData || error.category == .missingInput {
            throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "", message: Self.unlibrary(error.worded(for: .query)))]))
        }
    }

    /// A message without the library's folder in it (a client knows presets and sounds by name).
    static func unlibrary(_ text: String) -> String {
        var text = text
        for prefix in ["preset: ", "\(NSTemporaryDirectory())"] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        if let range = text.range(of: "/Presets/studio.yaml: ") { text = String(text[range.upperBound...]) }
        return text
    }

    /// The first text between single quotes in `message` (the sound it names), or "".
    static func quoted(_ message: String) -> String {
        let parts = message.split(separator: "'", omittingEmptySubsequences: false)
        return parts.count > 2 ? String(parts[1]) : ""
    }

    /// An issue at the first line of `yaml` that names `word` (a sound, say), or at no line.
    static func locate(_ word: String, in yaml: String, message: String) -> StudioIssue {
        guard !word.isEmpty else { return StudioIssue(field: "", message: message) }
        for (index, line) in yaml.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let range = line.range(of: word) {
                return StudioIssue(line: index + 1, column: line.distance(from: line.startIndex, to: range.lowerBound) + 1, field: "",
                                   message: message)
            }
        }
        return StudioIssue(field: "", message: message)
    }

    /// `POST /studio/plan`: the preset checked and planned, with its sounds, but not rendered: the
    /// timeline's SVG, the data the page's circle reads and the cue sheet; or its issues.
    func studioPlan(_ request: Request) async throws -> Response {
        let yaml = try await studioBody(request)
        // The form reads the YAML's nodes, whether or not the preset plans.
        let outline = PresetOutline.entries(yaml)
        let job: RenderJob
        do {
            job = try await studioJob(yaml, for: request)
        } catch var failure as ServeError where failure.invalid != nil {
            failure.invalid?.outline = outline
            throw failure
        }
        let plan: RenderPlan
        do {
            plan = try await gated(request) { try job.plan() }
        } catch let error as any DiagnosedError where error.category == .badData || error.category == .missingInput {
            // With the outline still: the page checks its form's edits against it.
            throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "", message: Self.unlibrary(error.worded(for: .query)))],
                                                   outline: outline))
        }
        let timeline = SessionTimeline(plan: plan, title: job.session.name)
        let view = StudioPlanView(timeline: timeline)
        var answer = StudioPlanAnswer(ok: true, errors: [])
        answer.svg = view.svg
        answer.name = job.session.name
        answer.durationSeconds = Double(plan.totalFrames) / Double(plan.rate)
        answer.cycles = plan.schedule.cycleCount
        answer.rate = plan.rate
        answer.summary = job.session.segments.map { $0.pattern.description }.joined(separator: " → ")
        // The page's data and the cue sheet are JSON already: they go in as text and are parsed there.
        answer.timeline = view.dataJSON
        answer.cueSheet = CueSheetWriter.json(plan)
        answer.warnings = job.sounds.warnings.map(Self.unlibrary) + plan.notes
        answer.form = outline
        return try Self.json(answer)
    }

    /// `POST /studio/save?name=NAME[&replace=1]`: a valid preset written into `--presets-dir`,
    /// atomically (a temporary file in the folder, then linked or renamed into place); an existing
    /// preset is replaced only with `replace=1`.
    func studioSave(_ request: Request) async throws -> Response {
        guard let folder = settings.presetsDirectory else {
            throw ServeError(.forbidden, "this server saves no presets: it was started without a folder to save them in")
        }
        let query = Self.query(request)
        guard let rawName = query.first(where: { $0.0 == "name" })?.1 else {
            throw ServeError(.badRequest, "give the preset's name: POST /studio/save?name=NAME (add &replace=1 to replace one)")
        }
        let name = try StudioRoutes.checkName(rawName)
        let replace = query.contains { $0.0 == "replace" && ["1", "true", "yes"].contains($0.1) }
        let yaml = try await studioBody(request)
        _ = try await studioJob(yaml, for: request)  // only a preset that plans is saved
        let saved = try StudioSaver(folder: folder).save(yaml, name: name, replace: replace)
        struct Saved: Encodable { var ok = true; var name: String; var file: String; var replaced: Bool }
        return try Self.json(Saved(name: name, file: "\(name).yaml", replaced: saved))
    }

    /// `POST /studio/listen`: keeps a valid preset to listen to and answers its id.
    func studioTake(_ request: Request) async throws -> Response {
        let yaml = try await studioBody(request)
        let job = try await studioJob(yaml, for: request)
        let id = studioTakes.add(yaml)
        struct Take: Encodable { var ok = true; var id: String; var url: String; var durationSeconds: Double }
        let total = try job.outline().total
        return try Self.json(Take(id: id, url: "/studio/listen/\(id)", durationSeconds: Double(total.milliseconds) / 1000))
    }

    /// `GET /studio/listen/ID?from=SECONDS`: the take rendered from that point and streamed as a WAV.
    func studioListen(_ request: Request, id: String) async throws -> Response {
        guard let yaml = studioTakes.yaml(id) else {
            throw ServeError(.notFound, "no take '\(id.prefix(32))': POST the preset to /studio/listen first (the newest \(StudioTakes.kept) are kept)")
        }
        let fromText = Self.query(request).first { $0.0 == "from" }?.1 ?? "0"
        guard let from = Double(fromText), from.isFinite, from >= 0 else {
            throw ServeError(.badRequest, "from=\(fromText.prefix(32)): give the point to start from in seconds, 0 or more")
        }
        let formatName = Self.query(request).first { $0.0 == "format" }?.1 ?? "wav"
        guard ["wav", "ogg"].contains(formatName) else {
            throw ServeError(.badRequest, "format=\(formatName.prefix(16)): listening streams 'wav' or 'ogg'; to download another format use /studio/render/ID?format=")
        }
        let job = try await studioJob(yaml, for: request)
        return try await studioStream(request, job: job, fromSeconds: from, vorbis: formatName == "ogg")
    }
}

/// A preset that does not plan, with its issues.
struct StudioInvalid: Sendable {
    var issues: [StudioIssue]
    /// The YAML's nodes, for the form, when the YAML parses.
    var outline: [PresetOutline.Entry]? = nil
}

/// The answer to `POST /studio/plan`.
struct StudioPlanAnswer: Encodable {
    var ok: Bool
    var errors: [StudioIssue]
    var name: String?
    var summary: String?
    var durationSeconds: Double?
    var cycles: Int?
    var rate: Int?
    var svg: String?
    var timeline: String?
    var cueSheet: String?
    var warnings: [String]?
    var form: [PresetOutline.Entry]?
}

/// Writes presets into one folder, never outside it: a temporary file beside the target, then
/// `link` (which fails if the name is taken) or, when replacing, `rename`.
struct StudioSaver {
    let folder: String

    /// Saves `yaml` as `name.yaml`; returns whether a preset was replaced.
    func save(_ yaml: String, name: String, replace: Bool) throws -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ServeError(.internalServerError, "the presets folder the server was started with is gone; its operator can make it again")
        }
        let target = "\(folder)/\(name).yaml"
        // The name was checked; the folder is the server's own. Nothing can point the write elsewhere
        // but a symlink of that name, which is refused.
        if let type = (try? FileManager.default.attributesOfItem(atPath: target))?[.type] as? FileAttributeType, type == .typeSymbolicLink {
            throw ServeError(.conflict, "'\(name).yaml' in the presets folder is a link; it is not replaced")
        }
        let existed = FileManager.default.fileExists(atPath: target) || FileManager.default.fileExists(atPath: "\(folder)/\(name).yml")
        if existed, !replace {
            throw ServeError(.conflict, "a preset named '\(name)' exists; save with replace to replace it, or choose another name")
        }
        let temporary = "\(folder)/.\(name).\(UUID().uuidString.prefix(8)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(yaml.utf8)) else {
            throw ServeError(.internalServerError, "cannot write into the presets folder: check its permissions")
        }
        defer { unlink(temporary) }
        if replace {
            guard rename(temporary, target) == 0 else {
                throw ServeError(.internalServerError, "cannot put '\(name).yaml' in place: \(String(cString: strerror(errno)))")
            }
        } else {
            guard link(temporary, target) == 0 else {
                if errno == EEXIST { throw ServeError(.conflict, "a preset named '\(name)' exists; save with replace to replace it") }
                throw ServeError(.internalServerError, "cannot put '\(name).yaml' in place: \(String(cString: strerror(errno)))")
            }
        }
        return existed
    }
}
