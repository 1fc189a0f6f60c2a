import Foundation
import HTTPTypes
import Hummingbird
import Medrender
import MedrenderBuild
import MedrenderCore
import MedrenderIO
import NIOCore

extension MedrenderService {
    /// `GET /studio/render/ID?format=ogg|mp3|flac|opus|wav`: a take rendered whole in that format,
    /// by the same path as `GET /render` (the cache, ranges, the same bytes as the command line's
    /// for the same preset), as a download.
    func studioRender(_ request: Request, id: String, head: Bool) async throws -> Response {
        guard let yaml = studioTakes.yaml(id) else {
            throw ServeError(.notFound, "no take '\(id.prefix(32))': POST the preset to /studio/listen first (the newest \(StudioTakes.kept) are kept)")
        }
        let query = Self.query(request)
        // Read as `/render` reads it: an unknown name is its 400, worded for the query.
        let format = try FormatName(parsing: query.first { $0.0 == "format" }?.1 ?? "ogg")
            .format(quality: SessionRequest(preset: "").quality, bits: nil)
        let job = try await studioJob(yaml, for: request, format: format)
        // What only the sounds' lengths tell (a voice longer than its place) is answered as the
        // plan's errors are, before a render starts.
        try await gated(request) {
            do {
                _ = try job.plan()
            } catch let error as any DiagnosedError where error.category == .badData || error.category == .missingInput {
                throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "", message: Self.unlibrary(error.worded(for: .query)))]))
            }
        }
        return try await serveRender(request, head: head, job: job, format: format, identity: Self.studioIdentity(yaml, job: job),
                                 disposition: "attachment")
    }

    /// A take's render identity: the renderer's version, the YAML, the format and the sounds' files.
    static func studioIdentity(_ yaml: String, job: RenderJob) -> String {
        var h = SHA256Hasher()
        h.update("medrender studio render \(LibraryBuild.rendererVersion)\n")
        h.update(fields: job.format)
        h.update("rate \(job.options.rate) channels \(job.options.channels)\n")
        h.update("preset \(yaml.utf8.count)\n")
        h.update(yaml)
        for sound in job.sounds.sounds.values.sorted(by: { $0.ref.name < $1.ref.name }) {
            h.update("\nsound \(sound.ref.name) \(URL(fileURLWithPath: sound.path).lastPathComponent) \(FileIdentity(path: sound.path))")
        }
        return String(h.finalizeHex().prefix(40))
    }

    /// The longest a cue is played for, in seconds (a bowl rings for 4).
    static let cueSeconds = 4.0

    /// `POST /studio/cue?kind=inhale|hold|hold-in|top-up|exhale|hold-out` (body: the YAML): the
    /// cue of that phase as the session plays it, from its first phase to the next cue (at most
    /// `cueSeconds`), cues alone and at their own gain, as a 16-bit WAV.
    func studioCue(_ request: Request) async throws -> Response {
        let kindName = Self.query(request).first { $0.0 == "kind" }?.1 ?? ""
        let kinds: [PhaseKind]
        if kindName == "hold" {
            kinds = [.holdIn, .holdOut]
        } else if let kind = PhaseKind(rawValue: kindName) {
            kinds = [kind]
        } else {
            throw ServeError(.badRequest, "kind=\(kindName.prefix(16)): give a phase: inhale, hold, hold-in, top-up, exhale or hold-out")
        }
        let yaml = try await studioBody(request)
        let job = try await studioJob(yaml, for: request, layers: [.cues])
        let wav: [UInt8] = try await gated(request) {
            let prepared: PreparedRender
            do {
                prepared = try job.prepare()
            } catch let error as any DiagnosedError where error.category == .badData || error.category == .missingInput {
                throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "cues", message: Self.unlibrary(error.worded(for: .query)))]))
            }
            let plan = prepared.plan
            let marks = Array(plan.cueMarks)
            guard let index = marks.firstIndex(where: { kinds.contains($0.kind) }) else {
                throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "cues.\(kindName)", message: "the pattern has no \(kindName) phase to cue")]))
            }
            guard plan.cues.contains(where: { kinds.contains($0.kind) }) else {
                throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "cues.\(kindName)", message: "the \(kindName) has no cue ('none'); give it a tone to hear it")]))
            }
            let start = marks[index].frame
            let longest = Int64(Self.cueSeconds * Double(plan.rate))
            let end = min(marks.dropFirst(index + 1).first?.frame ?? plan.totalFrames, start + longest, plan.totalFrames)
            let channels = plan.channels
            var samples = [UInt8]()
            var left = Int(end - start)
            PointRender(prepared, startFrame: start, gainDecibels: 0).run { block, count in
                let take = min(count, left)
                for i in 0..<(take * channels) {
                    let value = Int16(clamping: Int((max(-1, min(1, block[i])) * 32767).rounded()))
                    samples.append(UInt8(truncatingIfNeeded: value))
                    samples.append(UInt8(truncatingIfNeeded: value >> 8))
                }
                left -= take
                return left > 0
            }
            return Self.wavHeader(rate: plan.rate, channels: channels, dataBytes: Int64(samples.count)) + samples
        }
        return Response(status: .ok, headers: [.contentType: "audio/wav", .cacheControl: "no-store", .contentLength: "\(wav.count)"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: wav)))
    }
}
