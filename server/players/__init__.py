"""Who plays and how they stand: accounts and names, ratings, leaderboards."""
