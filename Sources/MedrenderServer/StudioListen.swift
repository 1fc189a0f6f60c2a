import Foundation
import HTTPTypes
import Hummingbird
import Medrender
import MedrenderCore
import MedrenderIO
import NIOCore

extension MedrenderService {
    /// A take rendered from `fromSeconds` (`PointRender`) and streamed as a 16-bit WAV as it is
    /// made: the gain is the whole session's, so the point sounds as it does in a whole render. It
    /// holds a render place (and the client's share) until the stream ends or its client leaves.
    ///
    /// With `vorbis`, the stream is an OGG Vorbis one instead (at the renderer's default quality),
    /// encoded as it is made; its length is not known before, so it has no `Content-Length`.
    func studioStream(_ request: Request, job: RenderJob, fromSeconds: Double, vorbis: Bool = false) async throws -> Response {
        // One render place (and the client's share) is held from the decoding to the stream's end.
        let client = client(of: request)
        if let refusal = await limits.begin(client) { throw ServeError.limited(refusal.message, retryAfter: refusal.retryAfter) }
        let gate = self.gate, limits = self.limits
        guard try await untilClientLeaves(request, { await gate.enter() }) else {
            await limits.end(client)
            throw ServeError.noPlace(clientLeft: clientLeft(request))
        }
        let release: @Sendable () -> Void = { Task { await gate.leave(); await limits.end(client) } }
        let prepared: PreparedRender
        do {
            prepared = try await BlockingWork.run("medrender studio take") { try job.prepare() }
        } catch let error as any DiagnosedError where error.category == .badData || error.category == .missingInput {
            release()
            throw ServeError.invalid(StudioInvalid(issues: [StudioIssue(field: "", message: Self.unlibrary(error.worded(for: .query)))]))
        } catch {
            release()
            throw error
        }
        let plan = prepared.plan
        let duration = Double(plan.totalFrames) / Double(plan.rate)
        guard fromSeconds <= duration, let from = SessionTime(seconds: fromSeconds) else {
            release()
            throw ServeError(.badRequest, String(format: "from=%g: the session is %.3f seconds; give a point inside it", fromSeconds, duration))
        }
        let startFrame = from.frame(atRate: plan.rate)
        let channels = plan.channels, rate = plan.rate
        let frames = plan.totalFrames - min(startFrame, plan.totalFrames)
        let dataBytes = frames * Int64(channels) * 2
        let header = Self.wavHeader(rate: rate, channels: channels, dataBytes: dataBytes)
        // The take is made on a thread of its own and handed over a few chunks at a time; it
        // starts now, and its render place is given back when it ends, however it ends.
        let stream = ChunkStream<Void>("medrender studio take", capacity: 8) { sink in
            defer { release() }
            let render = PointRender(prepared, startFrame: startFrame)
            if vorbis {
                try render.encodeVorbis(quality: SessionRequest(preset: "").quality, to: sink)
                return
            }
            var bytes = [UInt8]()
            bytes.reserveCapacity(Renderer.blockFrames * channels * 2)
            try render.run { samples, count in
                bytes.removeAll(keepingCapacity: true)
                for i in 0..<(count * channels) {
                    let value = Int16(clamping: Int((max(-1, min(1, samples[i])) * 32767).rounded()))
                    bytes.append(UInt8(truncatingIfNeeded: value))
                    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
                }
                try bytes.withUnsafeBytes { try sink.write($0) }
                return true
            }
        }
        let chunks = stream.makeAsyncIterator()
        let send: @Sendable (inout any ResponseBodyWriter) async throws -> Void = { writer in
            do {
                if !vorbis { try await writer.write(ByteBuffer(bytes: header)) }
                while let chunk = try await chunks.next() {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            } catch {
                chunks.cancel()
                throw error
            }
        }
        if vorbis {
            return Response(status: .ok, headers: [.contentType: "audio/ogg", .cacheControl: "no-store"],
                            body: ResponseBody(send))
        }
        let total = Int(44 + dataBytes)
        var headers: HTTPFields = [.contentType: "audio/wav", .cacheControl: "no-store"]
        headers[.contentLength] = "\(total)"
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: total, send))
    }

    /// A canonical 44-byte WAV header: PCM, 16 bits.
    static func wavHeader(rate: Int, channels: Int, dataBytes: Int64) -> [UInt8] {
        var out = [UInt8]()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        let data = UInt32(clamping: dataBytes)
        out += Array("RIFF".utf8); u32(36 &+ data); out += Array("WAVE".utf8)
        out += Array("fmt ".utf8); u32(16); u16(1); u16(UInt16(channels)); u32(UInt32(rate))
        u32(UInt32(rate * channels * 2)); u16(UInt16(channels * 2)); u16(16)
        out += Array("data".utf8); u32(data)
        return out
    }
}
