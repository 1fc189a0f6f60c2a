import Foundation
import MedrenderCore
import MedrenderIO

/// What a rendered file says about itself: tags, credits and chapters.
public struct OutputTags: Sendable, Hashable {
    public var title: String
    public var artist: String?
    public var album: String?
    public var date: String?
    public var comment: String?
    /// The credits of every sound used: who made it and under what license.
    public var credits: [String]
    /// Section starts, for chapters and WAV markers.
    public var chapters: [SessionSection]
    /// The cover image, for MP3, FLAC, OGG and Opus.
    public var cover: CoverArt? = nil

    /// Vorbis comments, chapters as `CHAPTER001=00:00:00.000` and `CHAPTER001NAME=Settle`.
    var vorbisComments: [(String, String)] {
        var list: [(String, String)] = [("TITLE", title)]
        for (key, value) in [("ARTIST", artist), ("ALBUM", album), ("DATE", date), ("COMMENT", comment)] {
            if let value, !value.isEmpty { list.append((key, value)) }
        }
        if !credits.isEmpty { list.append(("LICENSE", credits.joined(separator: "; "))) }
        list += chapterComments
        list.append(("ENCODER", "medrender"))
        if let cover { list.append(cover.vorbisComment) }
        return list
    }

    /// The chapters as Vorbis comments, `CHAPTER001=00:00:00.000` and `CHAPTER001NAME=Settle`
    /// (OGG, and added to FLAC and Opus once written).
    var chapterComments: [(String, String)] {
        chapters.enumerated().flatMap { i, chapter in
            let number = String(format: "%03d", i + 1)
            return [("CHAPTER\(number)", chapter.time.clockString), ("CHAPTER\(number)NAME", chapter.name)]
        }
    }

    /// libsndfile's string tags (WAV `LIST/INFO`, FLAC and Opus comments, MP3 ID3). libsndfile
    /// writes no copyright into MP3, so there the credits follow the comment.
    func soundFileTags(mp3: Bool) -> [(Int32, String)] {
        var list: [(Int32, String)] = [(SoundFileTag.title, title)]
        if let artist { list.append((SoundFileTag.artist, artist)) }
        if let album { list.append((SoundFileTag.album, album)) }
        if let date { list.append((SoundFileTag.date, date)) }
        let credited = credits.isEmpty ? nil : credits.joined(separator: "; ")
        if mp3 {
            let text = [comment, credited.map { "Credits: " + $0 }].compactMap { $0 }.joined(separator: " ")
            if !text.isEmpty { list.append((SoundFileTag.comment, text)) }
        } else {
            if let comment { list.append((SoundFileTag.comment, comment)) }
            if let credited { list.append((SoundFileTag.copyright, credited)) }
        }
        list.append((SoundFileTag.software, "medrender"))
        return list
    }

    /// The MP3 tags that Latin-1 does not hold (`Zoë Åberg ☯`, an em dash), as ID3 frames to write
    /// again in UTF-16; a tag Latin-1 holds keeps LAME's frame.
    var id3Texts: [(id: String, value: String)] {
        let written = soundFileTags(mp3: true)
        let ids: [Int32: String] = [SoundFileTag.title: "TIT2", SoundFileTag.artist: "TPE1", SoundFileTag.album: "TALB",
                                    SoundFileTag.comment: "COMM"]
        var texts: [(id: String, value: String)] = written.compactMap { key, value in
            guard let id = ids[key], !value.unicodeScalars.allSatisfy({ $0.value < 256 }) else { return nil }
            return (id, value)
        }
        // ID3v2.3 (what LAME writes) holds a date as a year (TYER) and a day (TDAT, DDMM).
        if let date, let match = date.wholeMatch(of: /(\d{4})(?:-(\d{2})-(\d{2}))?/) {
            texts.append(("TYER", String(match.1)))
            if let month = match.2, let day = match.3 { texts.append(("TDAT", String(day) + String(month))) }
        }
        return texts
    }

    /// WAV `INFO` keys for a stream to standard output.
    var waveInfo: [(String, String)] {
        var list: [(String, String)] = [("INAM", title)]
        if let artist { list.append(("IART", artist)) }
        if let album { list.append(("IPRD", album)) }
        if let date { list.append(("ICRD", date)) }
        if let comment { list.append(("ICMT", comment)) }
        if !credits.isEmpty { list.append(("ICOP", credits.joined(separator: "; "))) }
        list.append(("ISFT", "medrender"))
        return list
    }
}

/// Writes the finished mix in a format, to a file (atomically) or to standard output, and does
/// what each format needs at the end: a fixed Ogg serial for Opus, markers for WAV.
final class OutputWriter {
    /// Standard output's name on the command line.
    static let standardOutput = "-"

    let format: OutputFormat
    let path: String
    private let file: AtomicOutputFile?
    private let encoder: FrameEncoder
    /// Standard output, the pipe or device named as the output, or a caller's sink: OGG (at 44.1
    /// kHz and up) and WAV stream to it, the other formats are written to a temporary file and
    /// copied to it when done (`DecodedCheck.streamsAsEncoded`).
    private let stream: (any ByteSink)?
    private let markers: [WaveMarker]
    /// Chapters as Vorbis comments, added to a FLAC or Opus file once it is written.
    private let chapterComments: [(String, String)]
    /// Chapters as ID3 `CHAP` frames, added to an MP3 file once it is written.
    private let id3Chapters: [ID3Chapters.Chapter]
    /// Tags LAME cannot write whole (it writes Latin-1), written again in UTF-16 once the file is.
    private let id3Texts: [(id: String, value: String)]
    private let cover: CoverArt?

    /// A writer to `path`: a file (atomically), standard output (`-`), or a pipe or device.
    convenience init(format: OutputFormat, path: String, plan: RenderPlan, tags: OutputTags, seed: UInt64, blockFrames: Int,
                     vorbisThreads: Int? = nil, frames: Range<Int64>? = nil) throws(IOError) {
        let stream: (any ByteSink)? = path == Self.standardOutput ? StreamOutput() : StreamOutput.isStream(path) ? try StreamOutput(path: path) : nil
        try self.init(format: format, path: path, stream: stream, plan: plan, tags: tags, seed: seed, blockFrames: blockFrames,
                      vorbisThreads: vorbisThreads, frames: frames)
    }

    /// A writer to `stream` when given (`path` then only names it), else to the file at `path`.
    ///
    /// - Parameter vorbisThreads: for OGG, encode the stream in pieces on this many threads
    ///   (`PiecedVorbisEncoder`: the same bytes for any number); nil, the default, encodes it by
    ///   one encoder (`VorbisEncoder`).
    /// - Parameter frames: the part of the session written (its frames), nil for the whole; `tags`
    ///   are the part's.
    init(format: OutputFormat, path: String, stream: (any ByteSink)?, plan: RenderPlan, tags: OutputTags, seed: UInt64,
         blockFrames: Int, vorbisThreads: Int? = nil, frames: Range<Int64>? = nil) throws(IOError) {
        self.format = format
        self.path = path
        self.stream = stream
        let channels = plan.channels, rate = plan.rate
        let frameCount = frames.map { Int64($0.count) } ?? plan.totalFrames
        markers = tags.chapters.map { WaveMarker(frame: UInt32(clamping: $0.frame), name: $0.name) }
        chapterComments = tags.chapterComments
        let ends = tags.chapters.dropFirst().map(\.time.milliseconds) + [frames == nil ? plan.total.milliseconds : frameCount * 1000 / Int64(rate)]
        id3Texts = tags.id3Texts
        cover = tags.cover
        id3Chapters = zip(tags.chapters, ends).map { chapter, end in
            ID3Chapters.Chapter(startMilliseconds: UInt32(clamping: chapter.time.milliseconds), endMilliseconds: UInt32(clamping: end),
                                title: chapter.name)
        }
        switch (format, stream) {
        case (.ogg(let quality), let stream?) where DecodedCheck.streamsAsEncoded(format, rate: rate):
            file = nil
            encoder = try Self.vorbisEncoder(sink: stream, plan: plan, frameCount: frameCount, quality: quality, tags: tags, threads: vorbisThreads)
        case (.wav(let bits), let stream?):
            file = nil
            let writer = try StreamingWaveWriter(
                sink: stream, channels: channels, rate: rate, bits: bits == .int16 ? 16 : bits == .int24 ? 24 : 32,
                frameCount: frameCount, info: tags.waveInfo, markers: markers)
            encoder = StreamingWaveFrameEncoder(writer: writer, format: bits, blockFrames: blockFrames, seed: seed)
        default:
            let target = stream == nil ? path : NSTemporaryDirectory() + "/medrender-stream.\(format.fileExtension)"
            let output = try AtomicOutputFile(path: target)
            file = output
            switch format {
            case .ogg(let quality):
                encoder = try Self.vorbisEncoder(sink: output, plan: plan, frameCount: frameCount, quality: quality, tags: tags, threads: vorbisThreads)
            case .wav(let bits), .flac(let bits):
                let container: SoundFileContainer
                if case .wav = format {
                    container = Self.waveContainer(frameCount: frameCount, channels: channels, bits: bits)
                } else {
                    container = .flac
                }
                let writer = try SoundFileWriter(file: output, container: container, sampleFormat: bits, channels: channels,
                                                 rate: rate, tags: tags.soundFileTags(mp3: false))
                encoder = SoundFileFrameEncoder(writer: writer, channels: channels, blockFrames: blockFrames, seed: seed)
            case .opus, .mp3:
                let container: SoundFileContainer
                if case .opus = format { container = .opus } else { container = .mp3 }
                let writer = try SoundFileWriter(file: output, container: container, sampleFormat: .float32, channels: channels,
                                                 rate: rate, tags: tags.soundFileTags(mp3: container == .mp3), quality: format.unitQuality)
                encoder = SoundFileFrameEncoder(writer: writer, channels: channels, blockFrames: blockFrames, seed: seed)
            }
        }
    }

    func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        try encoder.write(frames, frameCount: frameCount)
    }

    /// WAV (RIFF) for a file under 4 GiB, RF64 at 4 GiB and more: RIFF's sizes are 32 bits.
    static func waveContainer(frameCount: Int64, channels: Int, bits: SampleFormat) -> SoundFileContainer {
        let bytesPerSample = bits == .int16 ? 2 : bits == .int24 ? 3 : 4
        let data = WaveSize.dataBytes(frameCount: frameCount, channels: channels, bytesPerSample: bytesPerSample)
        return WaveSize.needsRF64(dataBytes: data) ? .rf64 : .wav
    }

    /// One Vorbis encoder, or one that encodes in pieces on `threads` threads.
    private static func vorbisEncoder(sink: any ByteSink, plan: RenderPlan, frameCount: Int64, quality: Double, tags: OutputTags,
                                      threads: Int?) throws(IOError) -> any FrameEncoder {
        guard let threads else {
            return try VorbisEncoder(sink: sink, channels: plan.channels, rate: plan.rate, quality: quality, tags: tags.vorbisComments)
        }
        return try PiecedVorbisEncoder(sink: sink, channels: plan.channels, rate: plan.rate, quality: quality, tags: tags.vorbisComments,
                                       totalFrames: Int(frameCount), threads: threads,
                                       pieceSeconds: PiecedVorbisEncoder.pieceSeconds(rate: plan.rate, channels: plan.channels))
    }

    /// Where an OGG's pieces met (empty for one encoder or another format).
    var vorbisSplices: [Int64] { (encoder as? PiecedVorbisEncoder)?.splices ?? [] }
    /// How many Vorbis encoders the OGG started (0 for another format).
    var vorbisEncoders: Int { (encoder as? PiecedVorbisEncoder)?.encodersStarted ?? (encoder is VorbisEncoder ? 1 : 0) }

    /// The Vorbis encoder, when the format is OGG.
    var vorbisEncoder: (any VorbisPacketSource)? { encoder as? any VorbisPacketSource }

    /// The file being written, before it is put in place (or copied to a stream): nil for a
    /// stream written as it goes.
    var temporaryPath: String? { file?.temporaryPath }

    /// Ends the stream: the file is complete, and waits for `commit()` to be put in place.
    func finish() throws(IOError) {
        try encoder.finish()
        guard let file else { return }
        switch format {
        case .opus:
            try OggPages.appendOpusComments(chapterComments + (cover.map { [$0.vorbisComment] } ?? []), descriptor: file.descriptor, path: path)
            try OggPages.rewriteSerial(descriptor: file.descriptor, path: path, serial: UInt32(bitPattern: VorbisEncoder.serial))
        case .wav: if stream == nil { try WaveMarkers.append(markers, descriptor: file.descriptor, path: path) }
        case .flac: try FlacComments.append(chapterComments, picture: cover?.flacPictureBlock, descriptor: file.descriptor, path: path)
        case .mp3: try ID3Chapters.insert(id3Chapters, texts: id3Texts, picture: cover, descriptor: file.descriptor, path: path)
        default: break
        }
    }

    /// Puts the finished file in place (or copies it to the stream); a stream written as it went
    /// has nothing left to do.
    func commit() throws(IOError) {
        guard let file else { return }
        if let stream {
            do {
                try FileChunks.forEach(inDescriptor: file.descriptor, path: path) { try stream.write($0) }
            } catch let error as IOError {
                throw error
            } catch {
                throw IOError(.io, "could not be copied to the stream", path: path, cause: "\(error)")
            }
        } else {
            try file.commit()
        }
    }
}

/// Quantizes for a WAV stream to standard output, as `SoundFileFrameEncoder` does for files.
final class StreamingWaveFrameEncoder: FrameEncoder {
    let writer: StreamingWaveWriter
    private let quantizer: SampleQuantizer

    init(writer: StreamingWaveWriter, format: SampleFormat, blockFrames: Int, seed: UInt64) {
        self.writer = writer
        self.quantizer = SampleQuantizer(format: format, channels: writer.channels, blockFrames: blockFrames, seed: seed)
    }

    func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        let count = frameCount * writer.channels
        try quantizer.write(
            frames, frameCount: frameCount,
            float: { (p) throws(IOError) in try writer.write(float: p, count: count) },
            int16: { (p) throws(IOError) in try writer.write(int16: p, count: count) },
            int24: { (p) throws(IOError) in try writer.write(int24: p, count: count) })
    }

    func finish() throws(IOError) { try writer.finish() }
}
