# md-shootout: one IEX-TP packet (segment) in Cap'n Proto.
#
# A Packet carries the segment's sequence number, send time and a list of Messages. Message is a
# struct whose only content is an unnamed union of pointers to one struct per IEX message type:
# the idiomatic Cap'n Proto "sum type". (A union of *groups* would inline every variant's fields
# into Message, so every element of the List(Message) would be padded to the largest variant,
# Auction Information; with pointers each message costs its own struct plus one pointer word.)
# Trade Report and Trade Break share the Trade struct; price level updates carry their side as an
# enum, as on the wire ('8' buy, '5' sell).
#
# Symbols are UInt64: the 8 space-padded ASCII wire bytes read as a little-endian integer. That
# keeps them fixed size and inline in the struct's data section; Data or Text would add a pointer
# word plus a separately allocated, word-padded blob (and a NUL for Text) per message. Decoding
# turns the UInt64 back into the same 8 bytes with to_le_bytes, a register move, no allocation.
# Prices and timestamps are Int64 (4 implied decimals / ns since the epoch), sizes UInt32, flag
# bytes and one-letter ASCII codes UInt8.

@0xb237909c8c8ea406;

struct Packet {
  seq @0 :UInt64;          # sequence number of the first message
  sendTime @1 :Int64;      # IEX-TP send time, ns since the epoch
  messages @2 :List(Message);
}

struct Message {
  union {
    systemEvent @0 :SystemEvent;
    securityDirectory @1 :SecurityDirectory;
    tradingStatus @2 :TradingStatus;
    operationalHalt @3 :OperationalHalt;
    shortSalePriceTest @4 :ShortSalePriceTest;
    securityEvent @5 :SecurityEvent;
    retailLiquidity @6 :RetailLiquidity;
    priceLevelUpdate @7 :PriceLevelUpdate;
    tradeReport @8 :Trade;
    tradeBreak @9 :Trade;
    officialPrice @10 :OfficialPrice;
    auctionInformation @11 :AuctionInformation;
    quoteUpdate @12 :QuoteUpdate;
    addOrder @13 :AddOrder;
    orderModify @14 :OrderModify;
    orderDelete @15 :OrderDelete;
    orderExecuted @16 :OrderExecuted;
    clearBook @17 :ClearBook;
  }
}

# S
struct SystemEvent {
  event @0 :UInt8;
  timestamp @1 :Int64;
}

# D
struct SecurityDirectory {
  flags @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  roundLotSize @3 :UInt32;
  adjustedPocPrice @4 :Int64;
  luldTier @5 :UInt8;
}

# H
struct TradingStatus {
  status @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  reason @3 :UInt32;       # 4 ASCII bytes, little-endian
}

# O
struct OperationalHalt {
  status @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
}

# P
struct ShortSalePriceTest {
  status @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  detail @3 :UInt8;
}

# E
struct SecurityEvent {
  event @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
}

# I
struct RetailLiquidity {
  indicator @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
}

enum Side {
  buy @0;                  # '8'
  sell @1;                 # '5'
}

# 8 / 5 (DEEP only)
struct PriceLevelUpdate {
  side @0 :Side;
  flags @1 :UInt8;
  timestamp @2 :Int64;
  symbol @3 :UInt64;
  size @4 :UInt32;
  price @5 :Int64;
}

# T and B
struct Trade {
  flags @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  size @3 :UInt32;
  price @4 :Int64;
  tradeId @5 :Int64;
}

# X
struct OfficialPrice {
  priceType @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  price @3 :Int64;
}

# A
struct AuctionInformation {
  auctionType @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  pairedShares @3 :UInt32;
  referencePrice @4 :Int64;
  indicativeClearingPrice @5 :Int64;
  imbalanceShares @6 :UInt32;
  imbalanceSide @7 :UInt8;
  extensionNumber @8 :UInt8;
  scheduledAuctionTime @9 :UInt32;   # seconds since the epoch
  auctionBookClearingPrice @10 :Int64;
  collarReferencePrice @11 :Int64;
  lowerAuctionCollar @12 :Int64;
  upperAuctionCollar @13 :Int64;
}

# Q (TOPS only)
struct QuoteUpdate {
  flags @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  bidSize @3 :UInt32;
  bidPrice @4 :Int64;
  askPrice @5 :Int64;
  askSize @6 :UInt32;
}

# DEEP+ order messages. Add Order keeps its side as the wire byte ('8' buy, '5' sell): it is the
# one order message that carries it, and a byte the spec does not list must survive the trip.

# a
struct AddOrder {
  side @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  orderId @3 :Int64;
  size @4 :UInt32;
  price @5 :Int64;
}

# M
struct OrderModify {
  flags @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  orderId @3 :Int64;
  size @4 :UInt32;         # the new total displayed size
  price @5 :Int64;
}

# R
struct OrderDelete {
  timestamp @0 :Int64;
  symbol @1 :UInt64;
  orderId @2 :Int64;
}

# L
struct OrderExecuted {
  flags @0 :UInt8;
  timestamp @1 :Int64;
  symbol @2 :UInt64;
  orderId @3 :Int64;
  size @4 :UInt32;
  price @5 :Int64;
  tradeId @6 :Int64;
}

# C
struct ClearBook {
  timestamp @0 :Int64;
  symbol @1 :UInt64;
}
