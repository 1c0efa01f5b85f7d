"""Static Pax Pamir data: the map and components (``board``) and the cards (``cards``).

Pure standard library; nothing here changes during a game.
"""
