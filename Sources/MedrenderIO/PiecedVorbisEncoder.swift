import CVorbis
import Foundation
import Synchronization

/// Encodes one OGG Vorbis stream in pieces, on several threads: to a decoder it is one ordinary
/// stream, with one header set, granule positions counted from its first frame and pages numbered
/// in order.
///
/// How the pieces meet. A Vorbis block overlaps half of each neighbour, and a long block's window
/// depends on the sizes of the blocks beside it, so two encoders' packets can follow each other
/// only where both place the same long block at the same frame, followed by another long block.
/// A scout (libvorbis choosing block sizes, without coding them: a small part of the work) runs
/// over the whole stream as it arrives and says where a continuous encoder puts its blocks. Near
/// each nominal boundary (every `pieceSeconds`), the splice is the first pair of long blocks the
/// scout places there. The next piece's encoder starts a pre-roll before it (so its state, and its
/// packets from the splice on, are those of a continuous encoder), at the first of a few starting
/// frames whose own block choices meet the scout's at the splice; each piece's packets are kept
/// from one splice to the next. Every choice depends on the audio alone, never on the number of
/// threads, so the bytes are the same with 1, 2 or 4.
///
/// When a boundary offers no splice (no two long blocks in a row for half a piece, or no encoder
/// start that meets the one found), the piece goes on to the next boundary and tries there: a
/// stretch that cannot be cut is encoded continuously, and nothing fails.
///
/// The audio is held in 16 bits from the moment it arrives (`Int16.heldStep`: 95 dB under full
/// scale, far under what the codec takes away), and the scout and every piece encode those samples.
///
/// Each piece is encoded as its audio arrives, on a thread of its own, and its packets go on the
/// stream as soon as they are settled, the oldest piece's first: the audio goes to a piece, and its
/// packets come back, through `HandOffQueue`s. Memory: the audio handed to the pieces and not yet
/// encoded, in buffers that hold about one piece's audio between them (the caller waits for a
/// free one), and the next piece's start (its pre-roll and the starts tried, about a second).
/// Not `Sendable`: one encoder belongs to the thread that feeds it.
public final class PiecedVorbisEncoder {
    /// The stream serial, as for `VorbisEncoder`.
    public static let serial = VorbisEncoder.serial
    /// The nominal length of a piece in seconds, for tests that choose their own.
    public static let defaultPieceSeconds = 15.0

    /// The nominal length of a piece in a render, in seconds: 786,432 samples (1.5 MiB held in
    /// 16 bits), 4 to 30 s (8.2 s at 48 kHz stereo, 30 s at 8 kHz). Memory holds about one
    /// piece not yet encoded; the pre-roll (0.5 s) is encoded once more per piece. It depends on
    /// the rate and channels alone, never on the number of threads.
    public static func pieceSeconds(rate: Int, channels: Int) -> Double {
        min(30, max(4, 786_432 / Double(max(1, rate * channels))))
    }
    /// The pre-roll before each piece, in seconds.
    static let prerollSeconds = 0.5

    public let channels: Int
    public let rate: Int
    private let quality: Double
    private let threads: Int
    private let totalFrames: Int
    private let pieceFrames: Int
    private let prerollFrames: Int
    private let shortBlock: Int
    private let longBlock: Int

    private let output: OggPacketWriter
    /// The three header packets.
    public let headerPackets: [VorbisPacket]
    /// Called with every audio packet as it goes on the stream, in order.
    public var packetObserver: ((VorbisPacket) throws -> Void)?
    /// Where the pieces meet: for each splice, the frame at the centre of the last block of the
    /// piece before (the next piece's first block overlaps it from there on, half a long block).
    public private(set) var splices: [Int64] = []
    /// The most audio the stream has held at once, in samples: what it handed to the pieces and
    /// they had not yet encoded, and the next piece's start gathered.
    public private(set) var mostHeld = 0
    /// The long block's length in frames, which the stream's rate and quality choose.
    public var longBlockFrames: Int { longBlock }
    /// The Vorbis encoders started so far: the scout, each piece's, and those that only tried a
    /// piece's start (a stream of one piece starts two).
    public private(set) var encodersStarted = 0

    /// The scout: where a continuous encoder puts its blocks.
    private let scout: VorbisAnalysis
    /// The scout's blocks not yet looked at, in order.
    private var scoutBlocks: [VorbisBlockShape] = []
    /// Frames received so far.
    private var received = 0

    /// The piece being given the audio as it arrives.
    private var current: PieceWorker
    /// Its nominal boundary (moved on one piece when no splice is found there).
    private var boundary: Int
    /// Whether it is the last piece (no boundary after it).
    private var currentLast: Bool
    /// Where it ends, once the splice after it is found: its last block's centre, and the frame its
    /// audio ends at.
    private var splice: Int64?
    private var currentEnd: Int?
    /// The frame the current piece has been handed audio up to.
    private var handed = 0

    /// The next piece's audio, gathered from a little before the boundary until its encoder's
    /// start is chosen.
    private struct Gathering {
        var bufferStart: Int
        var audio: [Int16]
    }
    private var next: Gathering?
    /// Pieces being encoded (the current one last), oldest first: their packets go on the stream
    /// in this order.
    private var pieces: [PieceWorker] = []
    /// The buffers that carry the audio to the pieces, as many as `bound` takes.
    private let shared: PieceAudio
    /// Audio for the current piece not yet sent to it: a buffer of `shared`, from the stream's
    /// frame `fillingAt`. It goes when full, or when the piece may encode it (released or closed
    /// past its start), so the audio a piece holds beyond where it may encode is in full buffers.
    private var filling: [Int16]?
    private var fillingAt = 0
    /// How far behind the audio received a piece is held while the splice after it is looked
    /// for, in frames: more than the scout takes to place a block (a long block's lookahead and
    /// a block of audio handed at once), so the piece never sees a frame past its end.
    private let holdBack: Int
    /// The audio handed to the pieces and not yet encoded, at most (samples, in buffers of
    /// `windowStep` frames): a piece's, so the threads never wait on each other; beyond it, the
    /// caller waits.
    private let bound: Int
    private var finished = false

    /// Starts a stream and writes its headers.
    ///
    /// - Parameters:
    ///   - quality: as oggenc's `-q`, −1…10, default 4.
    ///   - totalFrames: the frames the stream will be given (a stream given fewer ends where they end).
    ///   - threads: how many pieces are encoded at once, 1 or more; the bytes do not depend on it.
    ///   - pieceSeconds: the nominal length of a piece, default 15.
    public init(sink: ByteSink, channels: Int, rate: Int, quality: Double, tags: [(String, String)] = [], totalFrames: Int,
                threads: Int, pieceSeconds: Double = PiecedVorbisEncoder.defaultPieceSeconds) throws(IOError) {
        self.channels = channels
        self.rate = rate
        self.quality = quality
        self.threads = max(1, threads)
        self.totalFrames = totalFrames
        scout = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        encodersStarted = 2
        shortBlock = scout.shortBlock
        longBlock = scout.longBlock
        // Piece lengths and pre-rolls in whole steps of 4096 frames, half the largest Vorbis block:
        // an encoder starting on one has a continuous encoder's block grid until a short block.
        let step = 4096
        pieceFrames = max(1, Int((pieceSeconds * Double(rate) / Double(step)).rounded())) * step
        prerollFrames = max(1, Int((Self.prerollSeconds * Double(rate) / Double(step)).rounded(.up))) * step
        holdBack = 8 * longBlock + 2 * Self.windowStep
        bound = max(pieceFrames, 2 * holdBack) * channels
        shared = PieceAudio(samples: bound, bufferFrames: Self.windowStep, channels: channels)
        headerPackets = try scout.headerPackets(tags: tags)
        output = try OggPacketWriter(sink: sink, serial: Self.serial)
        try output.writeHeaders(headerPackets)
        boundary = pieceFrames
        currentLast = pieceFrames + pieceFrames > totalFrames
        current = try PieceWorker(index: 0, start: 0, keepAfter: nil, boundary: currentLast ? Int.max : pieceFrames, channels: channels,
                                  rate: rate, quality: quality, shared: shared, onThread: self.threads > 1)
        launch(current)
    }

    deinit {
        // A stream abandoned mid-way stops its pieces and waits for their threads, which hold
        // no reference to it.
        if let filling { shared.giveBack(filling, samples: filling.count) }
        for piece in pieces { piece.cancel() }
        for piece in pieces { piece.waitUntilFinished() }
    }

    /// The steps in which audio is handed over while a splice is looked for, in frames.
    private static let windowStep = 4096

    /// Whether a nominal boundary is one: at least one piece's length is left after it.
    private func hasBoundary(_ boundary: Int) -> Bool { boundary + pieceFrames <= totalFrames }
    /// How far before a boundary the next piece's buffer starts: the pre-roll and the starts tried.
    private var lead: Int { prerollFrames + 2 * longBlock }

    /// Puts a piece on the stream's list and, with more than one thread, on a thread of its own.
    private func launch(_ piece: PieceWorker) {
        pieces.append(piece)
        piece.launch()
    }

    /// Hands the current piece `frameCount` frames from the stream's frame `at` (the frame after
    /// the last handed), through `filling`: waits while every buffer of `shared` is held.
    private func hand(_ frames: UnsafePointer<Int16>, frameCount: Int, at: Int) {
        var done = 0
        while done < frameCount {
            if filling == nil {
                filling = shared.take()
                fillingAt = at + done
            }
            let n = min(shared.bufferFrames - filling!.count / channels, frameCount - done)
            filling!.append(contentsOf: UnsafeBufferPointer(start: frames + done * channels, count: n * channels))
            shared.queued.wrappingAdd(n * channels, ordering: .relaxed)
            done += n
            if filling!.count == shared.bufferFrames * channels { sendFilling() }
        }
        mostHeld = max(mostHeld, shared.queued.load(ordering: .relaxed) + (next?.audio.count ?? 0))
    }

    private func sendFilling() {
        guard let audio = filling else { return }
        filling = nil
        current.send(.audio(at: fillingAt, samples: audio))
    }

    /// Lets the current piece encode up to `frame`, sending it the audio it may now encode.
    private func release(through frame: Int) {
        if filling != nil, frame > fillingAt { sendFilling() }
        current.release(through: frame)
    }

    /// Closes the current piece: its audio ends at `end`, its last kept block is centred on
    /// `keepThrough` (nil for the last piece).
    private func closeCurrent(end: Int, keepThrough: Int64?) {
        sendFilling()
        current.close(end: end, keepThrough: keepThrough)
    }

    /// Encodes `frameCount` interleaved frames.
    public func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        // Held in 16 bits from here on (`Int16.heldStep`): the scout, the pieces and the next
        // piece's start all take the same samples, at half the memory of floats.
        let count = frameCount * channels
        if held.count < count { held = [Int16](repeating: 0, count: count) }
        held.withUnsafeMutableBufferPointer { p in
            for i in 0..<count { p[i] = Int16(held: frames[i]) }
        }
        try held.withUnsafeBufferPointer { (p) throws(IOError) in try write(held: p.baseAddress!, frameCount: frameCount) }
    }

    /// The audio of one `write`, rounded to the 16 bits the stream holds.
    private var held: [Int16] = []

    private func write(held frames: UnsafePointer<Int16>, frameCount: Int) throws(IOError) {
        var done = 0
        while done < frameCount {
            // In steps no longer than the distance to the next frame something happens at, and
            // short ones while a splice is looked for.
            var n = frameCount - done
            if next == nil, !currentLast {
                let open = boundary - lead
                if received < open { n = min(n, open - received) }
            }
            if next != nil { n = min(n, Self.windowStep) }
            if let end = currentEnd, received < end { n = min(n, end - received) }
            let chunk = frames + done * channels
            // The current piece takes everything up to its end, once that is known; with no
            // splice looked for, it may encode all of it at once.
            let upTo = min(received + n, currentEnd ?? Int.max)
            if upTo > handed {
                if next == nil { release(through: upTo) }
                hand(chunk + (handed - received) * channels, frameCount: upTo - handed, at: handed)
                handed = upTo
            }
            if next != nil {
                next!.audio.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n * channels))
                mostHeld = max(mostHeld, shared.queued.load(ordering: .relaxed) + next!.audio.count)
            }
            // The scout is needed until the last piece starts.
            if next != nil || !currentLast {
                try scout.write(chunk, frameCount: n) { (shape) throws(IOError) in scoutBlocks.append(shape) }
            }
            received += n
            done += n
            try advance()
        }
    }

    /// Opens the next piece's buffer, finds splices, chooses starts and starts pieces, as far as
    /// the audio received allows.
    private func advance() throws(IOError) {
        // The current piece goes as far as the audio, but for a margin while its splice is not settled.
        release(through: next == nil ? min(received, currentEnd ?? Int.max) : max(0, received - holdBack))
        // The next piece's buffer opens `lead` frames before the boundary.
        if next == nil, !currentLast, received >= boundary - lead {
            precondition(received == boundary - lead, "the next piece's buffer opened late")
            next = Gathering(bufferStart: received, audio: [])
            next!.audio.reserveCapacity((lead + 4 * longBlock + Self.windowStep) * channels)
        }
        // The scout's blocks are looked at only near the next boundary.
        if next != nil || !currentLast {
            let boundary = Int64(self.boundary)
            if let first = scoutBlocks.firstIndex(where: { $0.center >= boundary - Int64(longBlock) }) {
                scoutBlocks.removeFirst(first)
            } else {
                scoutBlocks.removeAll(keepingCapacity: true)
            }
        } else {
            scoutBlocks.removeAll()
        }
        // The splice: the first two long blocks in a row at or after the nominal boundary.
        if next != nil, splice == nil {
            let boundary = Int64(self.boundary)
            let half = Int64(longBlock / 2)
            for i in scoutBlocks.indices.dropLast() where scoutBlocks[i].center >= boundary {
                let a = scoutBlocks[i], b = scoutBlocks[i + 1]
                if a.long, b.long, b.center == a.center + half { splice = a.center; break }
            }
            if let splice {
                currentEnd = Int(splice) + 3 * longBlock
            } else if received >= self.boundary + pieceFrames / 2 {
                // No two long blocks in a row for half a piece (a stream of transients): this
                // piece goes on, in one encoder, to the next boundary.
                try extendCurrentPiece()
            }
        }
        // The next piece's start, once its buffer reaches past the splice.
        if let gathered = next, let splice, let end = currentEnd, received >= end {
            // The current piece was held back; it must not have been given audio past its end.
            // The try of the next piece's start makes that piece's encoder: with more than one
            // thread, the oldest pieces are written out first, so that no more than `threads`
            // pieces' encoders are held at once, as when the piece was made once its start was
            // chosen. (With one, the current piece is the only one, and it ends once closed.)
            while threads > 1, pieces.count >= threads { try emit(untilOneFinishes: true) }
            if received - holdBack <= end, let piece = try chooseStart(gathered, splice: splice) {
                try startNextPiece(gathered, piece: piece, splice: splice, end: end)
            } else {
                // No encoder start meets this splice: the piece goes on to the next boundary.
                try extendCurrentPiece()
            }
        }
        try emit(untilOneFinishes: false)
    }

    /// The next piece, its encoder starting at `start` and its packets kept after `splice`.
    private func nextPiece(start: Int, splice: Int64) throws(IOError) -> PieceWorker {
        let nextBoundary = boundary + pieceFrames
        encodersStarted += 1
        return try PieceWorker(index: current.index + 1, start: start, keepAfter: splice,
                               boundary: hasBoundary(nextBoundary) ? nextBoundary : Int.max, channels: channels, rate: rate,
                               quality: quality, shared: shared, onThread: threads > 1)
    }

    /// Closes the current piece at its splice and starts the next one, with the audio gathered
    /// for it.
    private func startNextPiece(_ gathered: Gathering, piece: PieceWorker, splice: Int64, end: Int) throws(IOError) {
        closeCurrent(end: end, keepThrough: splice)
        splices.append(splice)
        // At most `threads` pieces at once: the oldest is written out before another starts (with
        // more than one thread, `advance` has done so before the piece was made).
        while pieces.count >= threads { try emit(untilOneFinishes: true) }
        let from = piece.nextFrame
        next = nil
        self.splice = nil
        currentEnd = nil
        boundary += pieceFrames
        currentLast = !hasBoundary(boundary)
        current = piece
        launch(piece)
        release(through: received)
        gathered.audio.withUnsafeBufferPointer { p in
            hand(p.baseAddress! + (from - gathered.bufferStart) * channels, frameCount: received - from, at: from)
        }
        handed = received
        sendFilling()
    }

    /// Gives up the splice at the current piece's boundary: the piece takes every frame the next
    /// one had gathered and runs on, in one encoder, to the boundary after (or to the end).
    private func extendCurrentPiece() throws(IOError) {
        precondition(next != nil, "a piece extended with no next piece gathering")
        let gathered = next!
        next = nil
        // What the current piece was not given after its planned end is in the next one's buffer.
        release(through: received)
        if received > handed {
            let from = handed - gathered.bufferStart
            gathered.audio.withUnsafeBufferPointer { p in
                hand(p.baseAddress! + from * channels, frameCount: received - handed, at: handed)
            }
            handed = received
            sendFilling()
        }
        splice = nil
        currentEnd = nil
        boundary += pieceFrames
        currentLast = !hasBoundary(boundary)
        current.moveBoundary(to: currentLast ? Int.max : boundary)
        release(through: received)
        scoutBlocks.removeAll(keepingCapacity: true)
    }

    /// The first encoder start, a pre-roll before the splice, whose block choices meet the
    /// scout's at the splice: a long block on it and another after it.
    ///
    /// An encoder starting on a step of 4096 frames has a continuous one's grid unless short
    /// blocks moved the stream's grid (by multiples of half a short block), so the starts tried
    /// are the boundary's pre-roll and then each shift by half a short block, up to two long blocks,
    /// the shift that puts the base's grid on the splice first.
    ///
    /// The base is tried with an encoder that only chooses block sizes: it gives that shift, and
    /// rarely meets the splice itself. The shift is tried with the next piece's own encoder, which
    /// codes its pre-roll as it goes: when the shift meets the splice (it mostly does), that
    /// encoder is the piece's and goes on from there, so its pre-roll is coded once and no encoder
    /// is started that codes a pre-roll for nothing. The other starts are tried with encoders that
    /// only choose block sizes.
    private func chooseStart(_ piece: Gathering, splice: Int64) throws(IOError) -> PieceWorker? {
        let base = boundary - prerollFrames
        let step = max(1, shortBlock / 2)
        let count = 2 * longBlock / step
        let half = Int64(longBlock / 2)
        /// Whether blocks `shapes` meet the splice: a long block on it, and another after it.
        func meets(_ shapes: [VorbisBlockShape]) -> Bool {
            guard let i = shapes.firstIndex(where: { $0.center == splice }), i + 1 < shapes.count else { return false }
            return shapes[i].long && shapes[i + 1].long && shapes[i + 1].center == splice + half
        }
        // The base's blocks: through the splice for its grid, and on to the block after for its try.
        let baseShapes = try blocks(of: piece, from: base, through: splice + half)
        if meets(baseShapes) { return try nextPiece(start: base, splice: splice) }
        // The shift that puts the base's grid on the splice; then the rest.
        var order: [Int] = []
        let toSplice = baseShapes.firstIndex(where: { $0.center >= splice }).map { baseShapes[...$0] } ?? baseShapes[...]
        if let grid = toSplice.last(where: \.long)?.center {
            let shift = Int(((grid - splice) % half + half) % half)
            for d in [shift, shift + Int(half), shift + 2 * Int(half), shift + 3 * Int(half)] where d > 0 && d < count * step {
                order.append(d)
            }
        }
        for j in 1..<count where !order.contains(j * step) { order.append(j * step) }
        // The first shift with the piece's own encoder, coding its pre-roll as it goes.
        guard let first = order.first else { return nil }
        let candidate = try nextPiece(start: base - first, splice: splice)
        let at = base - first - piece.bufferStart
        precondition(at >= 0, "the piece's buffer starts after the start tried")
        let shapes = try piece.audio.withUnsafeBufferPointer { (p) throws(IOError) in
            try candidate.lead(UnsafeBufferPointer(rebasing: p[(at * channels)...]), through: splice + half)
        }
        if meets(shapes) { return candidate }
        for d in order.dropFirst() where meets(try blocks(of: piece, from: base - d, through: splice + half)) {
            return try nextPiece(start: base - d, splice: splice)
        }
        return nil
    }

    /// The block shapes (centres in the stream's frames) of an encoder started at `start`,
    /// up to the first one centred at or after `through`.
    private func blocks(of piece: Gathering, from start: Int, through: Int64) throws(IOError) -> [VorbisBlockShape] {
        let analysis = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        encodersStarted += 1
        let at = start - piece.bufferStart
        precondition(at >= 0, "the piece's buffer starts after the start tried")
        return try piece.audio.withUnsafeBufferPointer { (p) throws(IOError) in
            try analysis.place(p.baseAddress! + at * channels, frameCount: p.count / channels - at, offset: start, through: through).shapes
        }
    }

    /// Writes the packets of the oldest pieces that may be written, in order; with
    /// `untilOneFinishes`, waits until the oldest piece is finished and written.
    private func emit(untilOneFinishes: Bool) throws(IOError) {
        var waiting = untilOneFinishes
        while let oldest = pieces.first {
            let taken = oldest.takePackets(wait: waiting)
            for packet in taken.packets {
                let placed = try output.add(packet.bytes, granulePosition: packet.granulePosition, endsStream: packet.endsStream)
                if let packetObserver {
                    do { try packetObserver(placed) } catch let error as IOError { throw error } catch {
                        throw IOError(.library, "the stream's check stopped", cause: "\(error)")
                    }
                }
            }
            if let failure = taken.failure { throw failure }
            guard taken.finished else {
                if waiting { continue }
                return
            }
            pieces.removeFirst()
            waiting = false
        }
    }

    /// Ends the stream: the last piece is encoded and every page written.
    public func finish() throws(IOError) {
        guard !finished else { return }
        finished = true
        // A splice not settled is given up: the current piece runs to the last frame received.
        if next != nil { try extendCurrentPiece() }
        closeCurrent(end: received, keepThrough: nil)
        while !pieces.isEmpty { try emit(untilOneFinishes: true) }
        try output.flush()
    }
}

/// An OGG Vorbis encoder whose packets can be watched as they go on the stream.
public protocol VorbisPacketSource: AnyObject {
    /// The stream's three header packets.
    var headerPackets: [VorbisPacket] { get }
    /// Called with every audio packet, in the stream's order.
    var packetObserver: ((VorbisPacket) throws -> Void)? { get set }
}

extension VorbisEncoder: VorbisPacketSource {}
extension PiecedVorbisEncoder: VorbisPacketSource {}
