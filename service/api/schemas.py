"""Request and response schemas: the API contract, written once, served as openapi.yaml."""

from __future__ import annotations

import re
import unicodedata

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate

from domain.games import default_registry

#: the largest version, position or page bound the API accepts (stores use 64-bit integers)
MAX_INT = 2**31 - 1


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE
        ordered = True


class StrictBoolean(fields.Boolean):
    """true or false, as the contract says; not 0, 1 or "yes" (which ``fields.Boolean`` takes)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Ref(fields.Raw):
    """A value dumped as it is and documented as the component schema ``component`` (one
    that ``service.api.app`` builds from the hosted games, such as ``GameCommand``)."""

    def __init__(self, component: str, **kwargs):
        super().__init__(**kwargs)
        self.component = component


class ProblemSchema(Schema):
    """An error, as application/problem+json (RFC 9457)."""

    type = fields.String(required=True, metadata={
        "description": "/problems/{code}, relative to the server: what the problem means"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable machine-readable error code"})
    current_version = fields.Integer(metadata={"description": "on a version conflict: the game's version"})
    option = fields.String(metadata={"description": "on an invalid option: its name"})
    errors = fields.Dict(metadata={"description": "on invalid input: the message per field"})
    checks = fields.Dict(metadata={"description": "on a 503 from /health: each backing service and whether "
                                                  "it answers"})


# -- players ---------------------------------------------------------------------------
#: characters a name may not hold anywhere: controls, line and paragraph separators,
#: private use, and the invisible ones that make a name display as another (bidirectional
#: overrides and isolates, zero-width marks); a lone surrogate never gets this far (strict
#: JSON refuses it: ``service.api.input_guard``)
NAME_FORBIDDEN = ("\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ue000-\\uf8ff"
                  "\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff")
#: white space a name may not start or end with (besides the forbidden characters)
NAME_SPACE = "\\x20\\xa0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000"
#: a name, as openapi.yaml states it: one character, or a first and a last that are neither
#: white space nor forbidden with none forbidden between (names are stored in Unicode
#: normal form C: a name sent in another form is normalised, not refused)
NAME_PATTERN = (f"^[^{NAME_FORBIDDEN}{NAME_SPACE}]"
                f"(?:[^{NAME_FORBIDDEN}]*[^{NAME_FORBIDDEN}{NAME_SPACE}])?$")
NAME_MAX = 64
_NAME = re.compile(NAME_PATTERN)
_FORBIDDEN = re.compile(f"[{NAME_FORBIDDEN}]")


def player_name(name: str) -> None:
    """A name shows as what it is (``NAME_PATTERN``): printable, no control, bidi or invisible
    characters, no white space at either end."""
    if not _NAME.fullmatch(name):
        wrong = _FORBIDDEN.search(name)
        if wrong is not None:
            raise ValidationError(f"must not contain the character U+{ord(wrong.group()):04X}")
        raise ValidationError("must not be blank, or start or end with white space")


class NewPlayerSchema(StrictSchema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=NAME_MAX), player_name],
                         metadata={"pattern": NAME_PATTERN,
                                   "description": "1 to 64 printable characters (no control, bidi-override or "
                                                  "zero-width characters; no leading or trailing space); stored "
                                                  "in Unicode normal form C"})

    @post_load
    def normalised(self, data: dict, **_: object) -> dict:
        """The name in normal form C (a name typed in another form is the same name)."""
        return {**data, "name": unicodedata.normalize("NFC", data["name"])}


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class PlayerWithTokenSchema(PlayerSchema):
    token = fields.String(required=True, metadata={"description": "send as 'Authorization: Bearer <token>'"})


# -- game types --------------------------------------------------------------------------
class OptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "int, bool, choice or object (a JSON object, its shape in the description)"})
    default = fields.Raw(required=True, allow_none=True)
    description = fields.String(required=True)
    nullable = fields.Boolean(required=True)
    choices = fields.List(fields.String())
    minimum = fields.Integer()
    maximum = fields.Integer()
    secret = fields.Boolean(metadata={"description": "kept with the game's hidden facts; shown as '(secret)'"})
    shape = fields.Dict(metadata={"description": "for an object: its form as JSON Schema (what its values must be "
                                                 "together, the game checks)"})


class ArgumentSchema(Schema):
    name = fields.String(required=True, metadata={"description": "the key in the command's args"})
    kind = fields.String(required=True, metadata={
        "description": "what the value names: card, region, border, coalition, suit, piece, choice, seat, amount"})
    type = fields.String(required=True, metadata={"description": "the JSON type of one value: string or integer"})
    list = fields.Boolean(required=True, metadata={"description": "the value is a list of such values"})
    description = fields.String(required=True)


class CommandInfoSchema(Schema):
    type = fields.String(required=True)
    args = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                       metadata={"description": "arg name -> kind (a plural kind is a list)"})
    arguments = fields.List(fields.Nested(ArgumentSchema), required=True)
    description = fields.String(required=True)


class BotKindSchema(Schema):
    kind = fields.String(required=True)
    description = fields.String(required=True)
    levels = fields.List(fields.String(), required=True)
    default_level = fields.String(required=True)


class SignInLinkSchema(Schema):
    code = fields.String(required=True, metadata={
        "description": "one-time: POST it to /sign-in (the web client: open /#/sign-in/<code>)"})
    expires_in = fields.Integer(required=True, metadata={"description": "seconds it stays valid"})


class SignInSchema(StrictSchema):
    code = fields.String(required=True, validate=validate.Length(min=1, max=1000))


class GameTypeSchema(Schema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    min_seats = fields.Integer(required=True)
    max_seats = fields.Integer(required=True)
    default_seats = fields.Integer(required=True, metadata={
        "description": "the seats a new game has unless asked otherwise: the fewest its default options play with"})
    options = fields.List(fields.Nested(OptionSchema), required=True)
    commands = fields.List(fields.Nested(CommandInfoSchema), required=True)
    bots = fields.List(fields.Nested(BotKindSchema), required=True,
                       metadata={"description": "the kinds of bot that can take a seat (POST /games, bots)"})
    cards_url = fields.String(required=True, allow_none=True, metadata={
        "description": "where the game's card catalogue is (what each card says), or null if it has none"})


class CardWordsSchema(Schema):
    name = fields.String(required=True)
    text = fields.String(required=True)


class SpecialAbilitySchema(Schema):
    key = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "as players call it"})
    timing = fields.String(required=True, metadata={"description": "when it applies: passive, purchase, ..."})
    text = fields.String(required=True, metadata={"description": "what it does, in this project's words"})


class EventSideSchema(Schema):
    key = fields.String(required=True)
    name = fields.String(required=True)
    text = fields.String(required=True)
    duration = fields.String(required=True, metadata={
        "description": "immediate, until_next_dominance_check or while_in_market"})
    scope = fields.String(required=True, metadata={"description": "all, purchaser or chosen_player"})


class CardFaceSchema(Schema):
    """What one card says. ``kind`` tells which fields it has: a court card its region, suit, stars
    (``rank``), patriot, prize, actions (left to right), impact icons (in the order they resolve) and
    special ability; an event its two sides; a Dominance Check a text."""

    number = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["court", "event", "dominance_check"]))
    region = fields.String()
    suit = fields.String()
    rank = fields.Integer()
    patriot = fields.String(allow_none=True)
    prize = fields.String(allow_none=True)
    actions = fields.List(fields.String())
    impact_icons = fields.List(fields.String())
    special_ability = fields.Nested(SpecialAbilitySchema, allow_none=True)
    purchasable = fields.Boolean()
    if_purchased = fields.Nested(EventSideSchema)
    if_discarded = fields.Nested(EventSideSchema)
    text = fields.String()


class CardCatalogueSchema(Schema):
    game = fields.String(required=True)
    version = fields.String(required=True, metadata={"description": "changes whenever any card's words do "
                                                                    "(also the answer's ETag)"})
    schema_version = fields.Integer(required=True)
    actions = fields.Dict(keys=fields.String(), values=fields.Nested(CardWordsSchema), required=True,
                          metadata={"description": "each card action's name and what it does"})
    impact_icons = fields.Dict(keys=fields.String(), values=fields.Nested(CardWordsSchema), required=True,
                               metadata={"description": "each impact icon's name and what it does"})
    cards = fields.Dict(keys=fields.String(), values=fields.Nested(CardFaceSchema), required=True,
                        metadata={"description": "every card, by its number"})


# -- games -----------------------------------------------------------------------------
class BotSeatSchema(StrictSchema):
    """A seat reserved for a computer opponent."""

    kind = fields.String(required=True, validate=validate.Length(min=1, max=32),
                         metadata={"description": "random, greedy, mcts, or a kind of the game's own "
                                                  "(GET /game-types lists them)"})
    level = fields.String(validate=validate.Length(min=1, max=32), allow_none=True,
                          metadata={"description": "one of the kind's levels (default: its default level)"})
    seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=63), allow_none=True,
                          metadata={"description": "the seat (default: the last seat still open)"})


class StandInSchema(StrictSchema):
    """The computer opponent that stands in for a person who left."""

    kind = fields.String(required=True, validate=validate.Length(min=1, max=32),
                         metadata={"description": "random, greedy or mcts (GET /game-types lists each game's kinds)"})
    level = fields.String(validate=validate.Length(min=1, max=32), allow_none=True,
                          metadata={"description": "one of the kind's levels (default: its default level)"})


class NewGameSchema(StrictSchema):
    # the contract lists the game types this server hosts (the rules refuse any other: 422
    # unknown_game_type); a server built with another registry (tests) checks its own
    type = fields.String(required=True, validate=validate.Length(min=1, max=64),
                         metadata={"enum": sorted(default_registry()), "description": "a game type of GET /game-types"})
    # no default in the contract (a generated client would then make it required): absent is false
    private = StrictBoolean(metadata={
        "description": "a private table: left out of the lobby; its seats are taken by invitation only "
                       "(absent: false)"})
    seats = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=64))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    bots = fields.List(fields.Nested(BotSeatSchema), load_default=list, validate=validate.Length(max=63),
                       metadata={"description": "seats reserved for bots, which play as soon as they are asked"})
    # no default in the contract, and absent is not null: absent is the server's default stand-in
    stand_in = fields.Nested(StandInSchema, allow_none=True, metadata={
        "description": "in a game of three or more seats, the computer opponent that takes a seat whose person "
                       "left (its clock ran out with nothing to play for it, or it resigned) while the others "
                       "play on; the person may reclaim it. Absent: greedy at its default level; null: no "
                       "stand-in, such a game ends as a game of two does"})


class BotInfoSchema(Schema):
    kind = fields.String(required=True)
    level = fields.String(required=True)


class JoinSchema(StrictSchema):
    seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=63), allow_none=True)


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True, allow_none=True)
    name = fields.String(required=True, allow_none=True)
    bot = fields.Nested(BotInfoSchema, metadata={"description": "present when the seat is a bot's"})
    stand_in_for = fields.String(metadata={
        "description": "present when a stand-in plays the seat: the player who left it (timed out or resigned), "
                       "who may take it back (POST /games/{game_id}/reclaim)"})


class OutcomeSchema(Schema):
    """How a finished game ended."""

    winners = fields.List(fields.Integer(), required=True, metadata={"description": "the winning seats"})
    scores = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                         metadata={"description": "seat (as a string) -> final score (gold, points)"})
    details = fields.Dict(required=True, metadata={"description": "the game's own account of the ending"})


class SigningKeySchema(Schema):
    key_id = fields.String(required=True, metadata={"description": "the id an export's signature names"})
    alg = fields.String(required=True, metadata={"description": "always Ed25519"})
    public_key = fields.String(required=True, metadata={"description": "the 32-byte public key in base64"})
    pem = fields.String(required=True, metadata={"description": "the same key as a PEM SubjectPublicKeyInfo"})
    signs = fields.Boolean(required=True, metadata={
        "description": "true for the key that signs new exports; the others only verify older ones"})


class SigningKeysSchema(Schema):
    keys = fields.List(fields.Nested(SigningKeySchema), required=True)


class SeatClockSchema(Schema):
    seat = fields.Integer(required=True)
    bank_seconds = fields.Float(required=True, allow_none=True, metadata={
        "description": "the seat's time bank when its clock last stopped or started (null: never started)"})
    running_since = fields.String(required=True, allow_none=True, metadata={
        "description": "when the seat's clock started running (null: stopped)"})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "description": "when the server acts for the seat if it has not moved (null: stopped)"})


class ClocksSchema(Schema):
    """The turn clocks of a game played with clock options."""

    paused = fields.Boolean(required=True)
    pause_votes = fields.List(fields.Integer(), required=True, metadata={"description": "seats that voted to pause"})
    seats = fields.List(fields.Nested(SeatClockSchema), required=True)


class ClocksAnswerSchema(ClocksSchema):
    version = fields.Integer(required=True)


class FairnessSchema(Schema):
    """The game's seed commitment, and once it is over the values that open it."""

    seed_commitment = fields.String(required=True, allow_none=True, metadata={
        "description": "sha256(salt || seed) in hex, published when the game was created (null: a game "
                       "from before commitments)"})
    seed = fields.String(required=True, allow_none=True, metadata={
        "description": "the seed every random outcome was drawn from, revealed when the game ended"})
    salt = fields.String(required=True, allow_none=True, metadata={
        "description": "the commitment's salt, revealed with the seed"})


class EndingsSchema(Schema):
    end_votes = fields.List(fields.Integer(), required=True, metadata={
        "description": "seats that proposed or agreed to end the game now (a draw once every person's seat agrees)"})
    rematch_votes = fields.List(fields.Integer(), required=True, metadata={
        "description": "seats that offered or accepted a rematch"})
    rematch_declined = fields.Boolean(required=True)
    rematch = fields.String(required=True, allow_none=True, metadata={"description": "the rematch's game id"})


class GameSchema(Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "active", "finished"]))
    options = fields.Dict(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    to_move = fields.List(fields.Integer(), required=True)
    version = fields.Integer(required=True)
    outcome = fields.Nested(OutcomeSchema, allow_none=True, required=True)
    ranked = fields.Boolean(dump_default=True, metadata={
        "description": "false for an imported log this server did not sign (or already had): it never "
                       "counts for scoreboards or players' records"})
    clocks = fields.Nested(ClocksSchema, metadata={"description": "present when the game has a turn clock"})
    fairness = fields.Nested(FairnessSchema, metadata={
        "description": "the seed commitment (check a finished game with `python -m service verify-fairness`)"})
    private = fields.Boolean(metadata={"description": "a private table: not in the lobby; seats by invitation only"})
    rematch_of = fields.String(allow_none=True, metadata={"description": "the game this one is a rematch of"})
    endings = fields.Nested(EndingsSchema, metadata={
        "description": "the seats that agreed to end the game now, and the rematch's offer after it"})
    stand_in = fields.Nested(BotInfoSchema, allow_none=True, metadata={
        "description": "the computer opponent that takes a seat its person left (a timeout with nothing to play, "
                       "or a resignation) in a game of three or more seats; null: none, such a game ends"})


class JoinedSchema(Schema):
    seat = fields.Integer(required=True)
    game = fields.Nested(GameSchema, required=True)


class LobbyGameSchema(GameSchema):
    created_at = fields.String(required=True)
    last_activity = fields.String(required=True, metadata={"description": "when the game last changed"})


class GameListSchema(Schema):
    games = fields.List(fields.Nested(LobbyGameSchema), required=True)
    total = fields.Integer(required=True, metadata={"description": "games matching the filter, on every page"})


class GameQuerySchema(StrictSchema):
    type = fields.String(validate=validate.Length(min=1, max=64))
    status = fields.String(validate=validate.OneOf(["waiting", "active", "finished"]))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT))


class StateQuerySchema(StrictSchema):
    at = fields.Integer(validate=validate.Range(min=1, max=MAX_INT), metadata={"description": "the version to view"})


class StateSchema(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "the caller's seat; null: spectator"})
    status = fields.String(required=True)
    view = Ref("GameView", required=True, allow_none=True,
               metadata={"description": "the game's view for this seat; null before the game has started"})
    clocks = fields.Nested(ClocksSchema, metadata={"description": "present when the game has a turn clock"})


class PromptChoiceSchema(Schema):
    """What one command type allows now."""

    allows = fields.String(required=True, validate=validate.OneOf(["nothing", "one_of", "subset_of", "between", "free"]),
                           metadata={"description": "nothing: no argument; one_of: one of `options`; subset_of: "
                                                    "`min` to `max` of `options`; between: a number in `min..max`; "
                                                    "free: any value of the argument's `kind` matching `pattern` "
                                                    "(computed by the client, such as a hash: none is listed in "
                                                    "`commands`)"})
    options = fields.List(fields.Raw(), metadata={"description": "for one_of and subset_of"})
    min = fields.Integer()
    max = fields.Integer()
    kind = fields.String(metadata={"description": "for free: the argument's kind (hash, salt...)"})
    type = fields.String(metadata={"description": "for free: the argument's JSON type"})
    description = fields.String(metadata={"description": "for free: what the value must be, in words"})
    pattern = fields.String(metadata={"description": "for free: a regular expression the whole value matches"})


class PromptSchema(Schema):
    text = fields.String(required=True, metadata={"description": "the question put to the caller's seat"})
    choices = fields.Dict(keys=fields.String(), values=fields.Nested(PromptChoiceSchema), required=True,
                          metadata={"description": "per command type, what it allows"})


class LegalCommandsSchema(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    prompt = fields.Nested(PromptSchema, allow_none=True, required=True,
                           metadata={"description": "what the caller is asked now; null when nothing is"})
    commands = fields.List(Ref("GameCommand"), required=True,
                           metadata={"description": "every command the caller may post now, in full"})


class EventSchema(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    source = fields.String(required=True, metadata={"description": "platform or game"})
    actor = fields.Integer(required=True, allow_none=True)
    at = fields.String(required=True, allow_none=True)
    data = fields.Dict(required=True)
    secret = fields.Dict(metadata={"description": "hidden facts, present only for a seat allowed to see them"})
    redacted = fields.Boolean(metadata={"description": "true when hidden facts were withheld"})
    bot = fields.String(metadata={"description": "present when a bot seat acted: its kind and level, kind:level"})


class EventPageQuerySchema(StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class EventPageSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    next_after = fields.Integer(required=True, allow_none=True,
                                metadata={"description": "pass as `after` for the next page; null at the end"})


class ReplayQuerySchema(StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=1000), metadata={
        "description": "steps in the page, at most; a page ends sooner at its 200th view (follow `next_after`)"})
    as_seat = fields.Integer(load_default=None, validate=validate.Range(min=0, max=63), metadata={
        "description": "each step as this seat saw it then: any seat once the game is over, your own during play "
                       "(404 for a seat the game does not have)"})
    view_every = fields.Integer(load_default=1, validate=validate.Range(min=0, max=MAX_INT), metadata={
        "description": "which steps carry their view: those whose version is a multiple of this, and the game's "
                       "last step; 0: none (the steps alone, cheap to list for a long game). Default 1: every step"})


class ReplayStepSchema(Schema):
    event = fields.Nested(EventSchema, required=True)
    view = Ref("GameView", allow_none=True, metadata={
        "description": "the view right after the event (null before the game started); absent from a step "
                       "`view_every` leaves out"})


class ReplaySchema(Schema):
    version = fields.Integer(required=True)
    steps = fields.List(fields.Nested(ReplayStepSchema), required=True)
    next_after = fields.Integer(required=True, allow_none=True)


class ExportConsentSchema(Schema):
    version = fields.Integer(required=True)
    consented = fields.List(fields.Integer(), required=True, metadata={"description": "seats that agreed (a bot seat always does)"})
    may_export = fields.Boolean(required=True)


class CommandResultSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    to_move = fields.List(fields.Integer(), required=True, metadata={
        "description": "the seats asked to move now, as `to_move` in GET /games/{game_id} (empty once the "
                       "game is over), so a client knows whose move it is without another request; "
                       "a retry answered from its Idempotency-Key record gives the game as it stands then"})


class HealthCheckSchema(Schema):
    ok = fields.Boolean(required=True)
    error = fields.String()


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["ok"]))
    store = fields.String(required=True)
    engine = fields.String(required=True, validate=validate.OneOf(["compiled", "pure"]), metadata={
        "description": "the rules engine that runs: `compiled` (mypyc, as `pip install .` builds it where a C "
                       "compiler is found) or `pure` (Python sources: the same rules, slower)"})
    checks = fields.Dict(keys=fields.String(), values=fields.Nested(HealthCheckSchema), metadata={
        "description": "each backing service (store, queue, limits) and whether it answers"})
    warnings = fields.List(fields.String(), metadata={
        "description": "what an operator should look at while the service still serves, e.g. a read model "
                       "whose checkpoint is ahead of the log (the store went back in time: it is rebuilt)"})
