"""Every number of the game and of our encodings, in one place.

Cells are indexed ``cell = y * WIDTH + x``; (0, 0) is the north-west corner.
"""

WIDTH = 15
HEIGHT = 15
CELLS = WIDTH * HEIGHT  # 225
BOARD_WORDS = 4  # a bitboard of 225 cells lives in 4 x 64-bit words

START_LIFE = 6
MAX_PLAYER_TURNS = 598  # 299 each; the game ends after player 1's 299th turn
MAX_ACTIONS = 999  # frames 2..1000 run one action each (frame 1 is the start)
TORPEDO_RANGE = 4

# Directions, in the order the protocol letters are listed in the rules.
NORTH, SOUTH, EAST, WEST = 0, 1, 2, 3
DIRECTION_LETTERS = "NSEW"
DX = (0, 0, 1, -1)
DY = (-1, 1, 0, 0)

# Powers: charge index, protocol word and the charges each needs (also its cap).
TORPEDO, SONAR, SILENCE, MINE = 0, 1, 2, 3
POWER_NAMES = ("TORPEDO", "SONAR", "SILENCE", "MINE")
POWER_COST = (3, 4, 6, 3)
NO_POWER = -1

# Encoded action kinds (one row of an action array: kind, a, b, error).
ACT_MOVE = 0  # a = direction, b = power to charge or NO_POWER
ACT_SURFACE = 1
ACT_TORPEDO = 2  # a = x, b = y (any 32-bit ints, as parsed)
ACT_SONAR = 3  # a = sector
ACT_SILENCE = 4  # a = direction, b = steps
ACT_MINE = 5  # a = direction
ACT_TRIGGER = 6  # a = x, b = y
ACT_UNKNOWN = 7  # an unknown word: disqualifies when reached
ACTION_FIELDS = 4
MAX_LINE_ACTIONS = 8  # each word at most once per line, MSG removed by the parser

# Error codes carried by an encoded action; non-zero disqualifies when the action is
# reached (for powers: only once the power is charged, as the referee checks charges first).
ERR_NONE = 0
ERR_DUPLICATE = 1
ERR_UNKNOWN = 2
ERR_MOVE_ARGS = 3
ERR_MOVE_DIRECTION = 4
ERR_MOVE_POWER = 5
ERR_TORPEDO_ARGS = 6
ERR_SONAR_ARGS = 7
ERR_SILENCE_ARGS = 8
ERR_SILENCE_DIRECTION = 9
ERR_SILENCE_DISTANCE = 10
ERR_MINE_ARGS = 11
ERR_MINE_DIRECTION = 12
ERR_TRIGGER_ARGS = 13
# Raised by execution, not by parsing:
ERR_MOVE_BLOCKED = 14
ERR_MOVE_VISITED = 15
ERR_TIMEOUT = 16
ERR_START = 17
ERR_START_CELL = 18

ERROR_TEXT = {
    ERR_DUPLICATE: "Two equal commands executed.",
    ERR_UNKNOWN: "Unknown command",
    ERR_MOVE_ARGS: "Invalid amount of parameters to MOVE. Should be MOVE direction power",
    ERR_MOVE_DIRECTION: "Invalid direction. Legal values are: N, S, E or W.",
    ERR_MOVE_POWER: "Invalid power to charge",
    ERR_TORPEDO_ARGS: "Invalid params to Torpedo. Should be TORPEDO x y",
    ERR_SONAR_ARGS: "Invalid sector on SONAR. Should be SONAR sectorId (1..9)",
    ERR_SILENCE_ARGS: "Invalid amount of params for Silence, should be: SILENCE direction steps",
    ERR_SILENCE_DIRECTION: "Invalid direction. Legal values are: N, S, E or W.",
    ERR_SILENCE_DISTANCE: "Invalid distance on SILENCE (0..4)",
    ERR_MINE_ARGS: "Invalid params for MINE, should be MINE direction",
    ERR_MINE_DIRECTION: "Invalid direction. Legal values are: N, S, E or W.",
    ERR_TRIGGER_ARGS: "Invalid params to Trigger. Should be TRIGGER x y",
    ERR_MOVE_BLOCKED: "Invalid move. Tried to move outside map or onto island",
    ERR_MOVE_VISITED: "Can't visit same location twice. Use surface.",
    ERR_TIMEOUT: "Timeout!",
    ERR_START: "Cannot read initial coordinates. Expected format: 'X Y'",
    ERR_START_CELL: "Invalid coordinates!",
}

# How a game ended.
END_NONE, END_LIFE, END_MAXTURNS, END_MAXFRAMES, END_DISQUALIFIED = 0, 1, 2, 3, 4
END_REASONS = ("running", "life", "maxturns", "maxframes", "disqualified")

# Sonar answer as stored in the state.
SONAR_NA, SONAR_NO, SONAR_YES = -1, 0, 1

# Time control of a program's answers: what CodinGame gives (and tells) a program, in ms.
TURN_MS = 50  # every answer after the first
FIRST_TURN_MS = 1000  # the first answer (the start cell), which also pays for the program's start
MAX_TIME_SCALE = 100.0  # limits enforced are the times above x a scale of at most this much
# A game an opponent program loses to its clock or a crash says nothing about the bot it played:
# it is played again, on the same seed and sides, at most this many times, then set aside (a
# program that fails every time on a map would only ever give free wins there).
OPPONENT_REPLAYS = 3
