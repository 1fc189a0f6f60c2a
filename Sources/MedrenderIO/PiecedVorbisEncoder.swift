import CVorbis
import Foundation

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
/// Memory: the audio of at most `threads` pieces being encoded and two being gathered.
/// Not `Sendable`: one encoder belongs to the thread that feeds it.
public final class PiecedVorbisEncoder {
    /// The stream serial, as for `VorbisEncoder`.
    public static let serial = VorbisEncoder.serial
    /// The nominal length of a piece in seconds, for tests that choose their own.
    public static let defaultPieceSeconds = 15.0

    /// The nominal length of a piece in a render, in seconds: about 3 MiB of audio (786,432
    /// samples), 4 to 30 s (8.2 s at 48 kHz stereo, 30 s at 8 kHz). Memory holds about
    /// `threads + 1` pieces; the pre-roll (0.5 s) is encoded once more per piece. It depends on
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
    /// The long block's length in frames, which the stream's rate and quality choose.
    public var longBlockFrames: Int { longBlock }

    /// The scout: where a continuous encoder puts its blocks.
    private let scout: VorbisAnalysis
    /// The scout's blocks not yet looked at, in order.
    private var scoutBlocks: [VorbisBlockShape] = []
    /// Frames received so far.
    private var received = 0

    /// A piece whose audio is being gathered.
    private struct Gathering {
        var index: Int
        /// The nominal boundary after it (moved on one piece when no splice is found there).
        var boundary: Int
        /// The frame its buffer starts at.
        var bufferStart: Int
        var audio: [Float]
        /// Its encoder's first frame, once chosen.
        var start: Int?
        var keepAfter: Int64?
        /// Its last kept block's centre, once the scout has found the next splice.
        var keepThrough: Int64?
        /// The frame its encoder's audio ends at, once known.
        var end: Int?
        var last: Bool
    }
    /// At most two: the piece being gathered, and the next one's pre-roll.
    private var gathering: [Gathering] = []
    /// Pieces given to a thread (or encoded), oldest first.
    private var inFlight: [PieceResult] = []
    private let queue = DispatchQueue(label: "medrender.vorbis-pieces", attributes: .concurrent)
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
        shortBlock = scout.shortBlock
        longBlock = scout.longBlock
        // Piece lengths and pre-rolls in whole steps of 4096 frames, half the largest Vorbis block:
        // an encoder starting on one has a continuous encoder's block grid until a short block.
        let step = 4096
        pieceFrames = max(1, Int((pieceSeconds * Double(rate) / Double(step)).rounded())) * step
        prerollFrames = max(1, Int((Self.prerollSeconds * Double(rate) / Double(step)).rounded(.up))) * step
        headerPackets = try scout.headerPackets(tags: tags)
        output = try OggPacketWriter(sink: sink, serial: Self.serial)
        try output.writeHeaders(headerPackets)
        gathering = [Gathering(index: 0, boundary: pieceFrames, bufferStart: 0, audio: [], start: 0, keepAfter: nil, keepThrough: nil,
                               end: nil, last: !hasBoundary(pieceFrames))]
        gathering[0].audio.reserveCapacity(capacity(boundary: pieceFrames, bufferStart: 0, last: gathering[0].last))
    }

    deinit {
        // A stream abandoned mid-way still waits for its threads, which hold no reference to it.
        for result in inFlight { _ = result.wait() }
    }

    /// The samples a piece's buffer holds at most (unless its boundary moves on): to the end for
    /// the last piece, else to the latest splice its boundary takes and the blocks after it. Reserved
    /// at once, so a buffer is never copied to grow.
    private func capacity(boundary: Int, bufferStart: Int, last: Bool) -> Int {
        let end = last ? totalFrames : min(totalFrames, boundary + pieceFrames / 2 + 4 * longBlock)
        return max(0, end - bufferStart) * channels
    }

    /// Whether a nominal boundary is one: at least one piece's length is left after it.
    private func hasBoundary(_ boundary: Int) -> Bool { boundary + pieceFrames <= totalFrames }
    /// How far before a boundary the next piece's buffer starts: the pre-roll and the starts tried.
    private var lead: Int { prerollFrames + 2 * longBlock }

    /// Encodes `frameCount` interleaved frames.
    public func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        var done = 0
        while done < frameCount {
            // In steps no longer than the distance to the next frame something happens at.
            var n = frameCount - done
            if let next = gathering.last, !next.last {
                let open = next.boundary - lead
                if received < open { n = min(n, open - received) }
            }
            for g in gathering.indices {
                if let end = gathering[g].end, received < end { n = min(n, end - received) }
            }
            let chunk = frames + done * channels
            for g in gathering.indices {
                let end = gathering[g].end ?? Int.max
                guard received < end else { continue }
                gathering[g].audio.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n * channels))
            }
            // The scout is needed until the last piece starts gathering.
            if gathering.count == 2 || !gathering[0].last {
                try scout.write(chunk, frameCount: n) { (shape) throws(IOError) in scoutBlocks.append(shape) }
            }
            received += n
            done += n
            try advance()
        }
    }

    /// Opens the next piece's buffer, finds splices, chooses starts, and sends complete pieces
    /// to be encoded, as far as the audio received allows.
    private func advance() throws(IOError) {
        // The next piece's buffer opens `lead` frames before its nominal boundary.
        if let current = gathering.last, !current.last, current.keepThrough == nil, gathering.count == 1,
            received >= current.boundary - lead
        {
            let boundary = current.boundary
            let bufferStart = boundary - lead
            var next = Gathering(index: current.index + 1, boundary: boundary + pieceFrames, bufferStart: bufferStart, audio: [],
                                 start: nil, keepAfter: nil, keepThrough: nil, end: nil, last: !hasBoundary(boundary + pieceFrames))
            next.audio.reserveCapacity(capacity(boundary: next.boundary, bufferStart: bufferStart, last: next.last))
            let have = received - bufferStart
            let from = gathering[0].audio.count - have * channels
            next.audio.append(contentsOf: gathering[0].audio[from...])
            gathering.append(next)
        }
        // The scout's blocks are looked at only near the next boundary.
        if let current = gathering.first, gathering.count == 2 || !current.last {
            let boundary = Int64(current.boundary)
            if let first = scoutBlocks.firstIndex(where: { $0.center >= boundary - Int64(longBlock) }) {
                scoutBlocks.removeFirst(first)
            } else {
                scoutBlocks.removeAll(keepingCapacity: true)
            }
        } else {
            scoutBlocks.removeAll()
        }
        // The splice: the first two long blocks in a row at or after the nominal boundary.
        if gathering.count == 2, gathering[0].keepThrough == nil {
            let boundary = Int64(gathering[0].boundary)
            let half = Int64(longBlock / 2)
            var found: Int64?
            for i in scoutBlocks.indices.dropLast() where scoutBlocks[i].center >= boundary {
                let a = scoutBlocks[i], b = scoutBlocks[i + 1]
                if a.long, b.long, b.center == a.center + half { found = a.center; break }
            }
            if let splice = found {
                gathering[0].keepThrough = splice
                gathering[0].end = Int(splice) + 3 * longBlock
                gathering[1].keepAfter = splice
                // Trim what arrived after the end.
                let keep = (Int(splice) + 3 * longBlock - gathering[0].bufferStart) * channels
                if gathering[0].audio.count > keep { gathering[0].audio.removeLast(gathering[0].audio.count - keep) }
            } else if received >= Int(boundary) + pieceFrames / 2 {
                // No two long blocks in a row for half a piece (a stream of transients): this
                // piece goes on, in one encoder, to the next boundary.
                extendFirstPiece()
            }
        }
        // The next piece's start, once its buffer reaches past the splice.
        if gathering.count == 2, let splice = gathering[1].keepAfter, gathering[1].start == nil,
            received >= Int(splice) + 3 * longBlock
        {
            if let start = try chooseStart(gathering[1], splice: splice) {
                gathering[1].start = start
            } else {
                // No encoder start meets this splice: the piece goes on to the next boundary.
                extendFirstPiece()
            }
        }
        // A piece whose audio is all here goes to be encoded.
        if let first = gathering.first, first.start != nil, let end = first.end, received >= end {
            var piece = gathering.removeFirst()
            try send(&piece)
        }
        try emitFinished(wait: false)
    }

    /// Gives up the splice at the first piece's boundary: the piece keeps every frame the next
    /// one had gathered and runs on, in one encoder, to the boundary after (or to the end).
    private func extendFirstPiece() {
        precondition(gathering.count == 2, "a piece extended with no next piece gathering")
        let next = gathering.removeLast()
        var first = gathering[0]
        gathering[0].audio = []  // one owner of the buffer, so it grows in place
        // What the first piece trimmed after its planned end is still in the next one's buffer.
        let have = first.bufferStart + first.audio.count / channels
        if received > have {
            let from = (have - next.bufferStart) * channels
            first.audio.append(contentsOf: next.audio[from...])
        }
        first.keepThrough = nil
        first.end = nil
        first.boundary += pieceFrames
        first.last = !hasBoundary(first.boundary)
        gathering[0] = first
        scoutBlocks.removeAll(keepingCapacity: true)
    }

    /// The first encoder start, a pre-roll before the splice, whose block choices meet the
    /// scout's at the splice: a long block on it and another after it.
    ///
    /// An encoder starting on a step of 4096 frames has a continuous one's grid unless short
    /// blocks moved the stream's grid (by multiples of half a short block), so the starts tried
    /// are the boundary's pre-roll and then each shift by half a short block, up to two long blocks.
    private func chooseStart(_ piece: Gathering, splice: Int64) throws(IOError) -> Int? {
        let boundary = piece.boundary - pieceFrames
        let base = boundary - prerollFrames
        let step = max(1, shortBlock / 2)
        let count = 2 * longBlock / step
        // First the base; then the shift that puts the base's grid on the splice; then the rest.
        var order: [Int] = [0]
        let half = Int64(longBlock / 2)
        // The base's blocks, once: through the splice for its grid, and on to the block after for its try.
        let baseShapes = try blocks(of: piece, from: base, through: splice + half)
        let toSplice = baseShapes.firstIndex(where: { $0.center >= splice }).map { baseShapes[...$0] } ?? baseShapes[...]
        if let grid = toSplice.last(where: \.long)?.center {
            let shift = Int(((grid - splice) % half + half) % half)
            for d in [shift, shift + Int(half), shift + 2 * Int(half), shift + 3 * Int(half)] where d > 0 && d < count * step {
                order.append(d)
            }
        }
        for j in 1..<count where !order.contains(j * step) { order.append(j * step) }
        for d in order {
            let start = base - d
            let shapes = d == 0 ? baseShapes : try blocks(of: piece, from: start, through: splice + half)
            if let i = shapes.firstIndex(where: { $0.center == splice }), i + 1 < shapes.count, shapes[i].long,
                shapes[i + 1].long, shapes[i + 1].center == splice + half
            {
                return start
            }
        }
        return nil
    }

    /// The block shapes (centres in the stream's frames) of an encoder started at `start`,
    /// up to the first one centred at or after `through`.
    private func blocks(of piece: Gathering, from start: Int, through: Int64) throws(IOError) -> [VorbisBlockShape] {
        let analysis = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        var shapes: [VorbisBlockShape] = []
        let frames = piece.audio.count / channels
        var at = start - piece.bufferStart
        precondition(at >= 0, "the piece's buffer starts after the start tried")
        try piece.audio.withUnsafeBufferPointer { (p) throws(IOError) in
            while at < frames, shapes.last.map({ $0.center < through }) ?? true {
                let n = min(VorbisEncoder.blockFrames, frames - at)
                try analysis.write(p.baseAddress! + at * channels, frameCount: n) { (shape) throws(IOError) in
                    var placed = shape
                    placed.center += Int64(start)
                    shapes.append(placed)
                }
                at += n
            }
        }
        return shapes
    }

    /// Gives a complete piece to a thread, or encodes it here with one thread.
    private func send(_ gathered: inout Gathering) throws(IOError) {
        guard let start = gathered.start else { return }
        var audio: [Float] = []
        swap(&audio, &gathered.audio)
        let skip = (start - gathered.bufferStart) * channels
        if skip > 0 { audio.removeFirst(skip) }  // in place: the piece was the buffer's one owner
        if !gathered.last, let splice = gathered.keepThrough { splices.append(splice) }
        let piece = VorbisPiece(index: gathered.index, start: start, audio: audio, keepAfter: gathered.keepAfter,
                                keepThrough: gathered.last ? nil : gathered.keepThrough, channels: channels, rate: rate, quality: quality)
        // At most `threads` pieces at once: the oldest is written out before another starts.
        while inFlight.count >= threads { try emitFinished(wait: true) }
        let result = PieceResult()
        inFlight.append(result)
        if threads == 1 {
            result.set(Result { () throws(IOError) in try piece.encode() })
        } else {
            queue.async { result.set(Result { () throws(IOError) in try piece.encode() }) }
        }
    }

    /// Writes the oldest pieces that are done, in order; with `wait`, waits for the oldest.
    private func emitFinished(wait: Bool) throws(IOError) {
        var waitForOne = wait
        while let oldest = inFlight.first {
            guard waitForOne || oldest.isDone else { return }
            waitForOne = false
            let packets = try oldest.wait().get()
            inFlight.removeFirst()
            for packet in packets {
                let placed = try output.add(packet.bytes, granulePosition: packet.granulePosition, endsStream: packet.endsStream)
                if let packetObserver {
                    do { try packetObserver(placed) } catch let error as IOError { throw error } catch {
                        throw IOError(.library, "the stream's check stopped", cause: "\(error)")
                    }
                }
            }
        }
    }

    /// Ends the stream: the last piece is encoded and every page written.
    public func finish() throws(IOError) {
        guard !finished else { return }
        finished = true
        // Whatever is still gathering ends at the last frame received.
        if gathering.count == 2, gathering[1].start == nil || received < (gathering[0].end ?? Int.max) {
            extendFirstPiece()
        }
        if gathering.count == 2 {
            gathering[1].last = true
            gathering[1].end = received
        } else if !gathering.isEmpty {
            gathering[0].last = true
            gathering[0].end = received
        }
        while !gathering.isEmpty {
            var piece = gathering.removeFirst()
            try send(&piece)
        }
        while !inFlight.isEmpty { try emitFinished(wait: true) }
        try output.flush()
    }
}

/// A piece's packets, handed from the thread that encodes it to the one that writes the stream.
// `@unchecked`: `result` is read and written under `condition` only.
private final class PieceResult: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<[VorbisPiecePacket], IOError>?

    func set(_ value: Result<[VorbisPiecePacket], IOError>) {
        condition.lock()
        result = value
        condition.broadcast()
        condition.unlock()
    }

    var isDone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return result != nil
    }

    func wait() -> Result<[VorbisPiecePacket], IOError> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
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
