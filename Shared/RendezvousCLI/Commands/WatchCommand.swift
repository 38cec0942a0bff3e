import ArgumentParser
import Contracts
import GatewayClient

/// `rendezvous watch`: your realtime events (messages, read receipts, matches, Swivo and
/// Momento news) as they happen, until Ctrl-C; it resumes by itself after a dropped connection.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Stream your realtime events until Ctrl-C (one JSON object per line with --json).")
    @OptionGroup var options: GlobalOptions
    @Option(help: "Start after this cursor (replays later events).") var after: Int64 = 0
    @Option(help: "Stop after this many events (not counting the first `ready`).") var count: Int?

    func run() async throws {
        try await options.withClient { client, output in
            var seen = 0
            for try await event in client.realtime.events(after: after) {
                let (kind, detail, text) = Self.describe(event)
                var object: JSONObject = ["cursor": event.cursor, "type": kind, "occurred_at": isoJSON(event.occurredAt)]
                object.merge(detail) { $1 }
                output.emitLine(object) { "[\(iso(event.occurredAt))] \(kind): \(text)" }
                if kind != "ready" { seen += 1 }
                if let count, seen >= count { return }
            }
        }
    }

    static func describe(_ event: Realtime.RealtimeEvent) -> (String, JSONObject, String) {
        switch event.event {
        case .ready(let ready)?:
            return ("ready", ["after_cursor": ready.cursor], "listening (cursor \(ready.cursor))")
        case .message(let received)?:
            let message = received.message ?? Messaging.Message()
            return ("message", ["message": ChatJSON.message(message)],
                    "\(message.senderID) in \(message.conversationID): \(ChatJSON.bodyText(message))")
        case .readReceipt(let receipt)?:
            return ("read_receipt", ["conversation_id": receipt.conversationID, "reader_id": receipt.readerID,
                                     "read_through_sequence": receipt.readThroughSequence],
                    "\(receipt.readerID) read \(receipt.conversationID) through #\(receipt.readThroughSequence)")
        case .match(let opened)?:
            let conversation = opened.conversation ?? Messaging.Conversation()
            return ("match", ["conversation": ChatJSON.conversation(conversation), "super_like": opened.superLike],
                    "new match with \(conversation.otherAccountID) — conversation \(conversation.conversationID)")
        case .conversationClosed(let closed)?:
            return ("conversation_closed", ["conversation_id": closed.conversationID], "conversation \(closed.conversationID) closed")
        case .sessionMatched(let matched)?:
            return ("session_matched", ["session_id": matched.sessionID, "option_id": matched.optionID,
                                        "option_name": matched.optionName],
                    "Swivo session \(matched.sessionID) matched on \(matched.optionName)")
        case .photosRevealed(let revealed)?:
            return ("photos_revealed", ["event_id": revealed.eventID, "event_name": revealed.eventName],
                    "Momento \(revealed.eventName) revealed its photos (event \(revealed.eventID))")
        case .encounterStep(let step)?:
            return ("encounter_step", ["encounter_id": step.encounterID, "step": step.step],
                    "encounter \(step.encounterID): \(step.step)")
        case .callUpdated(let updated)?:
            let call = updated.call
            return ("call_updated", ["call_id": call?.callID ?? "", "conversation_id": call?.conversationID ?? ""],
                    "call \(call?.callID ?? "") updated")
        case nil:
            return ("unknown", [:], "an event this CLI does not know")
        }
    }
}
