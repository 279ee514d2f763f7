"""The rules: cards, the DEAL-V1 shuffle, the four variants, notation, and the games that play them."""
