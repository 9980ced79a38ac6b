ByJ¶<ãul…O‡«d\Px¶m¢>AqË†C}$X{É“cº=¡˜qpßF½žG
Z×2š…‡_H2WB“¨Sf3o'yw>é4Ä/|ÆI@9·QxºeDFÅ7rŽ‚‹RÛEÞÔÁ8Ë­€·¢ÃRÅ¶œmœU¾¯\„M$¼lfR0&~y|J_<1Ql3r6)DSÌmN€TŒÒ…m†h“‘ŸŠ³eiqŒyÉŒÇZ·ŠÉh¸^¹·­±Mh ý