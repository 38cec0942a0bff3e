extension ProtoReader {
    /// Reads an embedded message, depth-checked against ``DecodingLimits/maxDepth``.
    public mutating func readMessage<M: ProtoMessage>(_ type: M.Type) throws -> M {
        var message = M()
        try readMessage(into: &message)
        return message
    }

    /// Merges an embedded message into `message`, as proto3 does when a singular message
    /// field occurs more than once: scalars are replaced, repeated fields and nested messages
    /// merge.
    public mutating func readMessage<M: ProtoMessage>(into message: inout M) throws {
        try readEmbedded { reader in
            try reader.decodeFields(into: &message)
        }
    }

    /// Decodes fields until the end of the current message, handing each to `message`.
    mutating func decodeFields<M: ProtoMessage>(into message: inout M) throws {
        while let next = try nextField() {
            try message.decodeField(next.field, from: &self)
        }
    }
}

extension ProtoReader {
    /// Reads an embedded message into an optional field: merged into the present value, or
    /// into a new one when the field was unset.
    public mutating func mergeMessage<M: ProtoMessage>(_ existing: M?) throws -> M {
        var message = existing ?? M()
        try readMessage(into: &message)
        return message
    }
}
